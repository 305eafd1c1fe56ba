"""How a setting is declared, once: its field with its flag, env names, help text and
whether it is recorded with a session; and the ``SettingSpec`` everything else reads.

A setting's group is the settings class that declares it (``ModelSettings``: models, ...),
so the flags of a subcommand, the recorded settings, the docs' settings reference and
``.env.example`` are all derived from the fields, never listed by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo


class SettingsGroup(BaseModel):
    """A group of settings; ``group`` names it in help, docs and ``ralph-tui config``."""

    group: ClassVar[str]

    # A group is only ever validated as part of ``Settings``: building each group's own
    # validator when its class is made would be eleven schemas nobody uses, on the way to
    # the app's first screen. ``Settings`` inherits this: its one validator is built when
    # settings are first loaded.
    model_config = ConfigDict(defer_build=True)


def setting(
    default: Any,
    name: str,
    *,
    doc: str,
    flag: str | None = None,
    seed: bool = False,
    aliases: tuple[str, ...] = (),
    more_flags: tuple[str, ...] = (),
    repeat: bool = False,
    metavar: str | None = None,
    recorded: bool = True,
    secret: bool = False,
) -> Any:
    """A setting read from ``RALPH_<name>``; a seed setting also from ``<name>`` and
    ``AX_<name>``, and any setting from its ``aliases`` (the seed's other names).

    ``flag`` is its command-line flag (also accepted in the other of camelCase and
    kebab-case, and as ``more_flags``); ``repeat``: the flag may be given several times,
    the values joined with commas. ``recorded``: a session records the value it ran with,
    so resume and re-run repeat it. ``secret``: never shown (``config`` says set or unset)
    and never recorded.
    """
    assert not (secret and recorded), f"{name}: a secret setting is never recorded"
    names = [f"RALPH_{name}", *([name, f"AX_{name}"] if seed else []), *aliases]
    extra: dict[str, Any] = {
        "flag": flag,
        "more_flags": list(more_flags),
        "doc": doc,
        "repeat": repeat,
        "metavar": metavar,
        "recorded": recorded,
        "secret": secret,
    }
    return Field(default, validation_alias=AliasChoices(*names), json_schema_extra=extra)


def key(*names: str, doc: str, secret: bool = True) -> Any:
    """A provider's key (``secret``) or endpoint: read from the standard variables only,
    never recorded with a session, never a flag."""
    extra: dict[str, Any] = {
        "flag": None,
        "more_flags": [],
        "doc": doc,
        "repeat": False,
        "metavar": None,
        "recorded": False,
        "secret": secret,
    }
    return Field(None, validation_alias=AliasChoices(*names), json_schema_extra=extra)


@dataclass(frozen=True)
class SettingSpec:
    """Everything known about one setting, derived from its field."""

    name: str
    env: str
    aliases: tuple[str, ...]
    flags: tuple[str, ...]
    """Its command-line spellings, the documented one first; empty: no flag."""
    group: str
    doc: str
    default: Any
    choices: tuple[str, ...] | None
    recorded: bool
    secret: bool
    endpoint: bool
    repeat: bool
    metavar: str | None
    switch: bool = False
    """An on/off setting: its flag turns it on, ``--no-`` before the flag turns it off."""
    path: bool = False
    """Its value is a place on disk (a file or a folder)."""

    @property
    def env_names(self) -> tuple[str, ...]:
        return (self.env, *self.aliases)

    @property
    def record_key(self) -> str:
        """How ``session.json`` names it: the field name in camelCase (``maxIters``)."""
        head, *rest = self.name.split("_")
        return head + "".join(part.capitalize() for part in rest)


def spec_of(name: str, field: FieldInfo, group: str) -> SettingSpec:
    extra = field.json_schema_extra
    assert isinstance(extra, dict), f"setting {name} is not declared with setting() or key()"
    alias = field.validation_alias
    envs = tuple(str(c) for c in alias.choices) if isinstance(alias, AliasChoices) else ()
    flag = extra["flag"]
    flags = (*flag_spellings(str(flag)), *extra["more_flags"]) if flag else ()  # type: ignore[misc]
    return SettingSpec(
        name=name,
        env=envs[0],
        aliases=envs[1:],
        flags=tuple(flags),
        group=group,
        doc=str(extra["doc"]),
        default=field.default,
        choices=literal_choices(field.annotation),
        recorded=bool(extra["recorded"]),
        secret=bool(extra["secret"]),
        endpoint=group == "keys and endpoints" and not extra["secret"],
        repeat=bool(extra["repeat"]),
        metavar=extra["metavar"] if isinstance(extra["metavar"], str) else None,
        switch=field.annotation is bool,
        path=field.annotation is Path or Path in get_args(field.annotation),
    )


def flag_spellings(flag: str) -> tuple[str, ...]:
    """``flag`` and its other spelling: ``--maxIters`` and ``--max-iters``, or
    ``--generate-model`` and ``--generateModel``."""
    body = flag.removeprefix("--")
    kebab = re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", body).lower()
    head, *rest = kebab.split("-")
    camel = head + "".join(part.capitalize() for part in rest)
    spellings = dict.fromkeys([flag, f"--{kebab}", f"--{camel}"])
    return tuple(spellings)


def literal_choices(annotation: Any) -> tuple[str, ...] | None:
    """The values of a ``Literal`` setting (also inside ``| None``), else ``None``."""
    if get_origin(annotation) is Literal:
        return tuple(str(value) for value in get_args(annotation))
    for arg in get_args(annotation):
        if get_origin(arg) is Literal:
            return tuple(str(value) for value in get_args(arg))
    return None
