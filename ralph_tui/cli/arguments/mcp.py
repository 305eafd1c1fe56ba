"""``ralph-tui mcp``: its arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ralph_tui.cli.settings_flags import RUN_GROUPS, add_settings_flags


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve ralph-tui as an MCP server: tools to ask documents, run a task, "
        "search documents, list and show sessions. Clients may read only documents under "
        "the roots; sessions go to --out. The settings given here are where every call starts."
    )
    parser.add_argument(
        "--root",
        action="append",
        type=Path,
        metavar="DIR",
        help="a folder whose documents clients may read; repeat for several "
        "(default: the current directory)",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at HOST:PORT (path /mcp) instead of stdio; an address "
        "that is not loopback needs --token",
    )
    add_settings_flags(parser, (*RUN_GROUPS, "mcp server"))
