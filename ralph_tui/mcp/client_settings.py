"""Which settings a client may give with a call, and the check of what it gave.

A client tunes a run (``max_iters``, ``provider``, ``top_k``...). What says where files go or
which endpoint gets the keys stays the server's: the settings holding a path (``out_dir``,
``mem_file``...) and the keys and endpoints are set where the server starts.
"""

from __future__ import annotations

import difflib
import functools
import typing
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings, SettingsError, SettingSpec, setting_specs

SERVER_GROUPS = ("keys and endpoints", "mcp server")
"""Groups of settings never taken from a client."""


@functools.cache
def client_settable() -> dict[str, SettingSpec]:
    """The settings a call may give, by name."""
    return {
        name: spec
        for name, spec in setting_specs().items()
        if spec.group not in SERVER_GROUPS and not _holds_path(Settings.model_fields[name])
    }


def _holds_path(field: Any) -> bool:
    annotation = field.annotation
    return annotation is Path or Path in typing.get_args(annotation)


def client_values(given: dict[str, Any] | None) -> dict[str, Any]:
    """``given`` by setting name (the recorded camelCase name is taken too);
    ``SettingsError`` for a name that is unknown or the server's."""
    settable = client_settable()
    by_record_key = {spec.record_key: name for name, spec in settable.items()}
    values: dict[str, Any] = {}
    problems = []
    for key, value in (given or {}).items():
        name = key if key in settable else by_record_key.get(key)
        if name is not None:
            values[name] = value
        elif key in setting_specs():
            problems.append(f"{key} is the server's to set (where ralph-tui mcp starts)")
        else:
            close = difflib.get_close_matches(key, list(settable), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            problems.append(f"{key} is not a setting{hint}")
    if problems:
        raise SettingsError(problems)
    return values
