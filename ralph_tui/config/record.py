"""The settings a session records, and how a resume or re-run reads them back.

Every setting declared ``recorded`` is written under its ``record_key``; keys and endpoints
never are. A path is recorded absolute, so a re-run from another folder finds the same file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph_tui.config.settings import Settings, setting_specs
from ralph_tui.redact import redact_urls


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
