"""``ralph-tui doctor``: its arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import RUN_GROUPS, add_settings_flags


def add_doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Check what ralph-tui needs, one line per check: ok, warn or fail with "
        "what to do. Exit 1 when a check fails. Keys are never printed."
    )
    parser.add_argument(
        "--online", action="store_true", help="also send a one-token call to each role's model"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    add_settings_flags(parser, RUN_GROUPS)
