"""``ralph-tui sessions list|show|reindex``: their arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import add_settings_flags
from ralph_tui.events import RUN_STATUSES

DEFAULT_LIST_LIMIT = 20


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count of sessions (0 for all)")
    return value


def add_sessions_arguments(sessions: argparse.ArgumentParser) -> None:
    verbs = sessions.add_subparsers(dest="verb", required=True, parser_class=type(sessions))
    listing = verbs.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--mode", choices=["qa", "task"])
    listing.add_argument("--status", choices=RUN_STATUSES)
    listing.add_argument("--search", metavar="TEXT", help="words in the query or output")
    shown = listing.add_mutually_exclusive_group()
    shown.add_argument(
        "--limit",
        type=_limit,
        default=DEFAULT_LIST_LIMIT,
        metavar="N",
        help=f"list at most N sessions (default {DEFAULT_LIST_LIMIT}; 0: all); a capped list "
        "says so on stderr",
    )
    shown.add_argument(
        "--all", dest="limit", action="store_const", const=0, help="list every session"
    )
    show = verbs.add_parser("show", help="one session with its iterations")
    show.add_argument("session_id")
    verbs.add_parser("reindex", help="rebuild index.sqlite from the session folders")
    for parser in (listing, show, verbs.choices["reindex"]):
        add_settings_flags(parser, (), also=("out_dir",))
        parser.add_argument("--json", action="store_true", help="print JSON")
