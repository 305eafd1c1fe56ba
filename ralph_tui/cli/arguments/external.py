"""``ralph-tui external list|refresh|clear``: their arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import URL_POLICY, add_settings_flags


def add_external_arguments(external: argparse.ArgumentParser) -> None:
    external.description = (
        "The cache of external documentation pages (default <out>/external_docs)."
    )
    actions = external.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="every cached page: URL, age, title, size")
    listing.add_argument("--json", action="store_true", help="print one JSON list")
    refresh = actions.add_parser(
        "refresh", help="crawl URLs anew (conditional GETs), or every cached page"
    )
    refresh.add_argument("urls", nargs="*", metavar="URL", help="sources to crawl again")
    add_settings_flags(
        refresh,
        ("external docs", URL_POLICY),
        also=("out_dir",),
        without=("external_refresh", "external_top_n", "external_top_k"),
    )
    clear = actions.add_parser("clear", help="remove cached pages (all, or the URLs given)")
    clear.add_argument("urls", nargs="*", metavar="URL", help="pages to remove")
    for parser in (listing, clear):
        add_settings_flags(parser, (), also=("out_dir", "external_cache_dir"))
