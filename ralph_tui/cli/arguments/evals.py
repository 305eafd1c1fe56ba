"""``ralph-tui eval``: its arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import add_settings_flags
from ralph_tui.config.inner_modes import INNER_MODES


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Run a suite as sessions and score them. A suite is a JSONL file of "
        '{"id", "mode", "query", "doc", "expect": {"facts", "evidence_spans"}}, or '
        "`needle` (a fact planted in prose of each size, at each depth) or `sample` "
        "(questions about the bundled handbook)."
    )
    parser.add_argument("--suite", help="a JSONL file, `needle` or `sample`")
    parser.add_argument("--list", action="store_true", help="list the evals run so far")
    parser.add_argument("--id", dest="eval_id", help="the eval's id (an existing one resumes)")
    parser.add_argument("--sizes", help="needle: sizes in tokens, e.g. 8k,64k,256k,1m")
    parser.add_argument("--depths", help="needle: depths from 0 to 1, e.g. 0,0.25,0.5,0.75,1")
    parser.add_argument("--seed", type=int, default=7, help="needle: the prose's shuffle")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions at once")
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
    parser.add_argument("--ray-address", help="a Ray cluster's address (default: local)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--inner",
        dest="inner_modes",
        metavar="MODE[,MODE...]",
        help=f"the inner mode ({', '.join(INNER_MODES)}; default: the setting's), or several "
        "comma-separated: the suite runs under each, compared side by side",
    )
    add_settings_flags(parser, without=("inner",))
