"""Loading settings: CLI flags > a session's recorded settings > environment > ``.env`` >
defaults, each value with where it came from, and every problem reported at once."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import ValidationError
from pydantic_settings import SettingsError as SourceError

from ralph_tui.config.declare import SettingSpec
from ralph_tui.config.paths import path_problems
from ralph_tui.config.record import refuse_recorded_paths_outside
from ralph_tui.config.settings import Settings, setting_specs
from ralph_tui.errors import UsageError
from ralph_tui.redact import redact_urls

OWN_PREFIXES = ("RALPH_", "AX_")
"""Names with these prefixes are meant for ralph-tui: an unknown one is a misspelling."""


class SettingsError(UsageError):
    """Settings with bad values: ``problems`` holds one line for each, naming the setting
    and where its value came from."""

    title = "Invalid settings"

    def __init__(self, problems: list[str]) -> None:
        self.problems = [redact_urls(problem) for problem in problems]
        count = f"{len(problems)} invalid settings: " if len(problems) > 1 else "invalid settings: "
        super().__init__(count + "; ".join(self.problems))


@dataclass(frozen=True)
class Layers:
    """Where values may come from, above the environment and ``.env``."""

    cli: dict[str, Any] = field(default_factory=dict)
    """Values from command-line flags (or an API call), by field name."""
    recorded: dict[str, Any] = field(default_factory=dict)
    """Values a session recorded, by field name."""
    recorded_from: str = "the recorded session"
    env_file: Path = Path(".env")
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def source_of(self, spec: SettingSpec) -> str:
        """Where the value of ``spec`` comes from, as a person reads it."""
        if spec.name in self.cli:
            return f"flag {spec.flags[0]}" if spec.flags else "the caller"
        if spec.name in self.recorded:
            return f"the settings recorded with {self.recorded_from}"
        names = read_names(spec)
        given = {key.upper(): key for key in self.environ}
        for name in names:
            if name in given:
                return f"environment variable {given[name]}"
        line = dotenv_line(self.env_file, names)
        if line is not None:
            return f"{self.env_file} line {line[0]} ({line[1]})"
        return "default"


def read_names(spec: SettingSpec) -> list[str]:
    """The names a setting is read from, upper case, the first one set winning (as the
    settings' sources read them): its declared names in order, then its field name."""
    return [name.upper() for name in (*spec.env_names, spec.name)]


def dotenv_line(path: Path, names: list[str]) -> tuple[int, str] | None:
    """The number and the name of the line of ``path`` whose value a setting read from
    ``names`` (first set wins) takes: of the first of them the file sets, its last line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    last: dict[str, tuple[int, str]] = {}
    for number, text in enumerate(lines, 1):
        name = text.strip().removeprefix("export ").partition("=")[0].strip()
        if name.upper() in names:
            last[name.upper()] = (number, name)
    return next((last[name] for name in names if name in last), None)


def load_settings(
    cli: dict[str, Any] | None = None,
    env_file: Path | None = None,
    *,
    recorded: dict[str, Any] | None = None,
    recorded_from: str = "the recorded session",
    writes: bool = False,
) -> Settings:
    """Build settings with ``recorded`` and then ``cli`` on top of the environment;
    ``SettingsError`` lists every bad value with where it came from, and
    ``RecordedPathOutside`` refuses a recorded path outside the out dir that ``cli`` does
    not give again. ``writes``: the caller will write to the places they name, so those are
    checked too."""
    layers = Layers(
        cli={k: v for k, v in (cli or {}).items() if v is not None},
        recorded={k: v for k, v in (recorded or {}).items() if v is not None},
        recorded_from=recorded_from,
        env_file=env_file or Path(".env"),
    )
    try:
        settings = Settings(_env_file=layers.env_file, **{**layers.recorded, **layers.cli})
    except ValidationError as exc:
        raise SettingsError(problems(exc, layers.source_of)) from None
    except SourceError as exc:  # a value the environment or .env gives that cannot be parsed
        raise SettingsError([unparsed(exc, layers.source_of)]) from None
    restored = [name for name in layers.recorded if name not in layers.cli]
    refuse_recorded_paths_outside(settings, restored, recorded_from)
    return check_paths(settings, layers) if writes else settings


def check_paths(settings: Settings, layers: Layers | None = None) -> Settings:
    """``settings`` if every place they write to can be written, else ``SettingsError``
    naming each bad one (and, given ``layers``, where its value came from)."""
    found = path_problems(settings)
    if not found:
        return settings
    specs = setting_specs()
    raise SettingsError(
        [
            f"{specs[name].flags[0] if specs[name].flags else name}: {problem}"
            + (f" (from {layers.source_of(specs[name])})" if layers else "")
            for name, problem in found.items()
        ]
    )


def with_values(settings: Settings, values: dict[str, Any], source: str) -> Settings:
    """``settings`` with ``values`` (by field name) on top, validated like any other value;
    ``SettingsError`` names ``source`` for a bad one. The values count as explicitly set."""
    if not values:
        return settings
    data = {name: getattr(settings, name) for name in Settings.model_fields} | values
    try:
        updated = Settings.model_validate(data)
    except ValidationError as exc:
        earlier = "the settings it was given"
        raise SettingsError(
            problems(exc, lambda spec: source if spec.name in values else earlier)
        ) from None
    object.__setattr__(updated, "__pydantic_fields_set__", settings.model_fields_set | set(values))
    return updated


def with_recorded(settings: Settings, recorded: dict[str, Any], recorded_from: str) -> Settings:
    """``settings`` with a session's ``recorded`` values on top (the app's re-run), checked
    as ``load_settings`` checks them: validated, no recorded path outside the out dir, and
    every place they write to writable."""
    updated = with_values(settings, recorded, recorded_from)
    refuse_recorded_paths_outside(updated, recorded, recorded_from)
    return check_paths(updated)


def problems(exc: ValidationError, source_of: Any) -> list[str]:
    """One line for each error of ``exc``: the setting, its value, where it came from."""
    lines = []
    for error in exc.errors():
        loc = error.get("loc") or ()
        spec = spec_for(str(loc[0])) if loc else None
        message = str(error["msg"]).removeprefix("Value error, ")
        if spec is None:
            lines.append(message)
            continue
        lines.append(
            f"invalid value {error.get('input')!r} for setting {spec.name} "
            f"(from {source_of(spec)}): {message}"
        )
    return lines


def unparsed(exc: SourceError, source_of: Any) -> str:
    """One line for a value the settings' sources could not parse (a mapping that is not
    JSON): the setting and where its value came from."""
    field = UNPARSED_FIELD.search(str(exc))
    spec = spec_for(field.group(1)) if field else None
    why = str(exc.__cause__ or exc).splitlines()[0]
    if spec is None:
        return f"a setting's value cannot be read: {why}"
    return (
        f"the value of setting {spec.name} (from {source_of(spec)}) cannot be read: {why} "
        "(a mapping or a list is written as JSON)"
    )


UNPARSED_FIELD = re.compile(r'field "([^"]+)"')
"""How pydantic-settings names the field whose value it could not parse."""


def spec_for(loc: str) -> SettingSpec | None:
    """The setting a validation error's location names (a field or any of its env names)."""
    specs = setting_specs()
    if loc in specs:
        return specs[loc]
    return next(
        (s for s in specs.values() if loc.upper() in {n.upper() for n in s.env_names}), None
    )


def known_env_names() -> list[str]:
    return sorted({name.upper() for spec in setting_specs().values() for name in spec.env_names})


def misspelled_settings(
    env_file: Path | None = None, environ: Mapping[str, str] = os.environ
) -> list[str]:
    """A warning for each setting name that looks meant for ralph-tui but is not one (it
    would be silently ignored), naming the closest known setting."""
    known = known_env_names()
    path = env_file or Path(".env")
    found = [(key, "the environment") for key in environ if key.upper().startswith(OWN_PREFIXES)]
    if path.is_file():
        found += [(key, str(path)) for key in dotenv_values(path)]
    warnings = []
    for key, where in found:
        if key.upper() in known:
            continue
        close = difflib.get_close_matches(key.upper(), known, n=1, cutoff=0.75)
        if not close and not key.upper().startswith(OWN_PREFIXES):
            continue  # another tool's variable in a shared .env
        hint = f"did you mean {close[0]}?" if close else "ralph-tui config lists every setting"
        warnings.append(f"unknown setting {key} in {where} is ignored: {hint}")
    return warnings
