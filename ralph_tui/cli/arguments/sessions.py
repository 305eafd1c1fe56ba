"""``ralph-tui sessions list|show|reindex``: their arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import add_settings_flags
from ralph_tui.events import RUN_STATUSES


def add_sessions_arguments(sessions: argparse.ArgumentParser) -> None:
    verbs = sessions.add_subparsers(dest="verb", required=True, parser_class=type(sessions))
    listing = verbs.add_parser("list", help="list sessions, newest first")
    listing.add_argument("--mode", choices=["qa", "task"])
    listing.add_argument("--status", choices=RUN_STATUSES)
    listing.add_argument("--search", metavar="TEXT", help="words in the query or output")
    listing.add_argument("--limit", type=int, default=20)
    show = verbs.add_parser("show", help="one session with its iterations")
    show.add_argument("session_id")
    verbs.add_parser("reindex", help="rebuild index.sqlite from the session folders")
    for parser in (listing, show, verbs.choices["reindex"]):
        add_settings_flags(parser, (), also=("out_dir",))
        parser.add_argument("--json", action="store_true", help="print JSON")
