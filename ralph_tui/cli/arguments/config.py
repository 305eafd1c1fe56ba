"""``ralph-tui config``: its arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import RUN_GROUPS, add_settings_flags


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Every effective setting with its source (flag, environment variable, "
        ".env line, variant or default); keys are shown as set or unset."
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings_flags(parser, RUN_GROUPS)
