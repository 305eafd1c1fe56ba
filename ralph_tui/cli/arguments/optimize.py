"""``ralph-tui optimize``: its arguments."""

from __future__ import annotations

import argparse

from ralph_tui.cli.settings_flags import add_settings_flags


def add_optimize_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Evaluate the stored sessions per variant, propose new variants, keep "
        "the Pareto front (pass rate, latency, cost) and make its best the active variant."
    )
    parser.add_argument("--propose", type=int, default=3, help="new variants at most")
    parser.add_argument("--activate", metavar="ID", help="make this variant active, and stop")
    parser.add_argument("--no-activate", action="store_true", help="leave the active one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--eval",
        dest="evals",
        action="append",
        metavar="ID",
        help="measure only the sessions of this eval (repeat: one per variant, to compare "
        "them on the same suite)",
    )
    parser.add_argument(
        "--evolve", action="store_true", help="evolve role prompts with GEPA over --suite"
    )
    parser.add_argument("--suite", help="--evolve: a JSONL suite, or `sample`")
    parser.add_argument("--budget", type=int, default=40, help="--evolve: sessions at most")
    parser.add_argument("--max-usd", type=float, default=None, help="--evolve: dollars at most")
    parser.add_argument(
        "--components", default="worker", help="--evolve: the role prompts to evolve"
    )
    parser.add_argument("--concurrency", type=int, default=4, help="--evolve: sessions at once")
    add_settings_flags(parser)
