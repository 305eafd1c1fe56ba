"""The settings a session records, and how a resume or re-run reads them back.

Every setting declared ``recorded`` is written under its ``record_key``; keys and endpoints
never are. A path is recorded absolute, so a re-run from another folder finds the same file.

A session folder may come from someone else, so what it recorded is input like a user's:
restored values are validated as flags are, and a recorded path (any setting whose value is
a place on disk) must lie inside the out dir unless the command line gives it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ralph_tui.config.declare import SettingSpec
from ralph_tui.config.settings import Settings, setting_specs
from ralph_tui.errors import UsageError
from ralph_tui.redact import redact_urls


class RecordedPathOutside(UsageError):
    """A session recorded a file or folder outside the out dir (a memory file, a cache):
    resuming or re-running it would read or write there."""

    title = "A recorded path leads out"


def recorded_settings(settings: Settings) -> dict[str, Any]:
    """What ``session.json`` keeps of ``settings``: every recorded setting, as JSON, with
    credentials inside URLs (``--externalDocs https://user:PASS@...``) hidden, as a session
    folder may be shared."""
    recorded: dict[str, Any] = {}
    for spec in setting_specs().values():
        if spec.recorded:
            value = getattr(settings, spec.name)
            if isinstance(value, Path):
                value = str(value.resolve())
            recorded[spec.record_key] = redact_urls(value) if isinstance(value, str) else value
    return recorded


def restored_settings(stored: dict[str, Any]) -> dict[str, Any]:
    """The settings a session recorded, by field name, to run it again with (a value it
    did not record, or recorded as unset, is left to the current settings)."""
    return {
        spec.name: stored[spec.record_key]
        for spec in setting_specs().values()
        if spec.recorded and stored.get(spec.record_key) is not None
    }


def refuse_recorded_paths_outside(
    settings: Settings, restored: Iterable[str], recorded_from: str
) -> None:
    """``RecordedPathOutside`` when a setting among ``restored`` (field names whose values
    came from a recorded session) names a place outside ``settings.out_dir``, both resolved
    to real paths first (so a link inside the out dir that leads out is refused too)."""
    out_dir = Path(settings.out_dir).resolve()
    specs = setting_specs()
    outside: list[SettingSpec] = []
    for name in restored:
        spec = specs[name]
        value = getattr(settings, name)
        if spec.path and value is not None and not Path(value).resolve().is_relative_to(out_dir):
            outside.append(spec)
    if not outside:
        return
    named = ", ".join(f"{_named(spec)} {getattr(settings, spec.name)}" for spec in outside)
    again = " and ".join(_named(spec) for spec in outside)
    raise RecordedPathOutside(
        f"{named} (recorded with {recorded_from}) {'is' if len(outside) == 1 else 'are'} "
        f"outside the out dir {out_dir}: a session folder may come from someone else, so the "
        "paths it recorded are not followed there",
        hint=f"give {again} on the command line: that path again to use it, or another",
    )


def _named(spec: SettingSpec) -> str:
    return spec.flags[0] if spec.flags else spec.env
