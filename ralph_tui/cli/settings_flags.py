"""The settings' command-line flags, derived from their declarations: a subcommand asks for
the groups (and single settings) it takes, and gets each one's flags, help and choices."""

from __future__ import annotations

import argparse
from typing import Any

from ralph_tui.config import Settings, SettingSpec, load_settings, setting_specs
from ralph_tui.config.run_groups import DocumentSettings

URL_POLICY = "URL policy"
"""The group of the settings that say where fetches may go (every command that fetches)."""
DOCUMENTS = DocumentSettings.group
"""The group of the settings that say how documents are read (every command that reads them)."""
RUN_GROUPS = (
    "models",
    "budgets",
    "retrieval",
    DOCUMENTS,
    "external docs",
    URL_POLICY,
    "memory",
    "output",
)
"""The groups whose flags ``run`` (and the commands that run sessions) take."""


def add_settings_flags(
    parser: argparse.ArgumentParser,
    groups: tuple[str, ...] = RUN_GROUPS,
    *,
    also: tuple[str, ...] = (),
    without: tuple[str, ...] = (),
) -> None:
    """The flag of every setting in ``groups``, and of the settings named in ``also``,
    but not of those named in ``without``; ``--help`` lists them group by group."""
    sections: dict[str, Any] = {}
    for spec in setting_specs().values():
        wanted = spec.group in groups or spec.name in also
        if spec.flags and wanted and spec.name not in without:
            if spec.group not in sections:
                sections[spec.group] = parser.add_argument_group(f"{spec.group} settings")
            if spec.switch:
                sections[spec.group].add_argument(
                    *spec.flags,
                    dest=spec.name,
                    default=None,
                    action=argparse.BooleanOptionalAction,
                    help=flag_help(spec),
                )
                continue
            sections[spec.group].add_argument(
                *spec.flags,
                dest=spec.name,
                default=None,
                action="append" if spec.repeat else "store",
                choices=spec.choices,
                metavar=spec.metavar,
                help=flag_help(spec),
            )


def flag_help(spec: SettingSpec) -> str:
    default = "" if spec.default is None else f"default: {spec.default}; "
    repeat = "; repeat the flag for several" if spec.repeat else ""
    return f"{spec.doc} ({default}env {spec.env}{repeat})"


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line gave, by field name (a repeated flag's values joined
    with commas)."""
    values: dict[str, Any] = {}
    for spec in setting_specs().values():
        value = getattr(args, spec.name, None)
        if value is not None:
            values[spec.name] = ",".join(value) if spec.repeat else value
    return values


def settings_from_args(
    args: argparse.Namespace,
    recorded: dict[str, Any] | None = None,
    recorded_from: str = "the recorded session",
) -> Settings:
    """The settings of this command: its flags over ``recorded`` (a session's) over the
    environment and ``.env``, the places it writes to checked before anything runs."""
    return load_settings(
        flag_values(args), recorded=recorded, recorded_from=recorded_from, writes=True
    )
