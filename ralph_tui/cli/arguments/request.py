"""What a run is about — its mode, question or task, documents, and whether it is split
into sub-tasks: the arguments ``run`` takes and the app's run form takes too (imports
argparse alone, so ``ralph-tui --help`` lists them without loading the settings)."""

from __future__ import annotations

import argparse
from pathlib import Path

DECOMPOSE_NEEDS_TASK = "--decompose works in task mode only"
"""How ``run`` and the app refuse ``--decompose`` in QA mode."""


def add_request_arguments(parser: argparse.ArgumentParser, default_mode: str = "task") -> None:
    """The arguments; ``default_mode`` is what ``--help`` says the mode is without ``--mode``
    (``run``: task; the app: what its form holds)."""
    parser.add_argument(
        "--mode", choices=["qa", "task"], help=f"qa or task (default: {default_mode})"
    )
    parser.add_argument("--query", help="the question (qa) or the task (task)")
    parser.add_argument(
        "--doc",
        type=Path,
        action="append",
        help="a document (text, Markdown, PDF, HTML, Word), a folder of them, or a glob; "
        "repeat for several",
    )
    parser.add_argument("--decompose", action="store_true", help="split the task into sub-tasks")
