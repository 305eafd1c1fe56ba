"""``ralph-tui run``: its arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ralph_tui.cli.arguments.request import add_request_arguments
from ralph_tui.cli.settings_flags import add_settings_flags


def add_run_arguments(run: argparse.ArgumentParser, default_mode: str = "task") -> None:
    """``default_mode``: the mode ``--help`` says a run has without ``--mode``."""
    run.description = "Run a session."
    add_request_arguments(run, default_mode)
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    run.add_argument(
        "--estimate",
        action="store_true",
        help="print the run's expected and worst-case tokens and cost in every inner mode, "
        "and exit without running it (no key, no model call, no network)",
    )
    run.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="at the end, write the session's report here (format from the extension: "
        ".html, .md or .json)",
    )
    again = run.add_mutually_exclusive_group()
    again.add_argument("--resume", metavar="SESSION_ID", help="continue an interrupted session")
    again.add_argument(
        "--rerun",
        metavar="SESSION_ID",
        help="a new session with this one's question, documents and settings, as its child "
        "(--constraint replaces the constraints it started with; flags override its settings)",
    )
    run.add_argument(
        "--constraint", action="append", default=[], help="a constraint for iteration 1"
    )
    run.add_argument("--parent", metavar="SESSION_ID", help="record the run as a re-run of this")
    add_settings_flags(run)
    run.add_argument("--verbose", "-v", action="store_true", help="print every agent step")
    run.add_argument(
        "--optimize", action="store_true", help="optimize from the sessions instead of a run"
    )
    run.add_argument("--propose", type=int, default=3, help=argparse.SUPPRESS)
    run.add_argument("--activate", metavar="ID", help=argparse.SUPPRESS)
    run.add_argument("--no-activate", action="store_true", help=argparse.SUPPRESS)
