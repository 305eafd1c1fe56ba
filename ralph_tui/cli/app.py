"""Command-line interface: argument parsing, the headless runner and subcommands."""

from __future__ import annotations

import argparse
import sys

from ralph_tui import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ralph-tui",
        description="Grounded, evidence-backed document analysis with LLMs.",
    )
    parser.add_argument("--version", action="version", version=f"ralph-tui {__version__}")
    return parser


def run_cli(argv: list[str]) -> int:
    parser = build_parser()
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    parser.print_help(sys.stderr)
    return 2
