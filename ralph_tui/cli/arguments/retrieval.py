"""``ralph-tui index`` and ``ralph-tui search``: their arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ralph_tui.cli.settings_flags import DOCUMENTS, add_settings_flags


def add_index_arguments(index: argparse.ArgumentParser) -> None:
    index.description = (
        "Build the retrieval index of a document (or load it from the cache) and print its figures."
    )
    _add_document(index)
    index.add_argument("--rebuild", action="store_true", help="build anew, ignoring the cache")
    _add_common(index)


def add_search_arguments(search: argparse.ArgumentParser) -> None:
    search.description = "Search a document with the retrieval pipeline (no LLM)."
    _add_document(search)
    search.add_argument("query", help="what to look for")
    _add_common(search)


def _add_document(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc", type=Path, help="a document, a folder of them, or a glob")


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings_flags(parser, ("retrieval", DOCUMENTS), also=("out_dir",))
