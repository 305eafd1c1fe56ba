"""``ralph-tui optimize`` (and the seed's ``run --optimize``): the variants table with
measured or projected figures, the Pareto front, and the active variant."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.config import Settings
from ralph_tui.errors import ExitCode, UsageError
from ralph_tui.evals.sample import sample_suite
from ralph_tui.evals.store import evals_dir, list_evals, read_scores
from ralph_tui.evals.suite import EvalItem, SuiteError, load_suite
from ralph_tui.optimize.report import report_json, report_lines
from ralph_tui.optimize.run import optimize
from ralph_tui.variants.store import VariantStore


def run_optimize(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if getattr(args, "evolve", False):
        return run_evolve(args, settings)
    if args.activate:
        VariantStore(settings.out_dir).activate(args.activate)
        print(f"active variant: {args.activate}")
        return ExitCode.OK
    if args.propose < 0:
        raise UsageError("--propose is 0 or more")
    only = eval_sessions(settings, args.evals) if getattr(args, "evals", None) else None
    report = optimize(settings, args.propose, activate=not args.no_activate, only=only)
    if args.json:
        print(json.dumps(report_json(report)))
    else:
        print("\n".join(report_lines(report)))
    return ExitCode.OK


def eval_sessions(settings: Settings, eval_ids: list[str]) -> set[str]:
    """The sessions of the named evals; ``SuiteError`` for an eval the out dir lacks."""
    sessions: set[str] = set()
    for eval_id in eval_ids:
        folder = evals_dir(settings.out_dir) / eval_id
        if not folder.is_dir():
            known = ", ".join(i for i, _ in list_evals(settings.out_dir)) or "none yet"
            raise SuiteError(f"no eval {eval_id!r}; the evals: {known}")
        sessions |= {s.session_id for s in read_scores(folder).values() if s.session_id}
    return sessions


def run_evolve(args: argparse.Namespace, settings: Settings) -> int:
    """``optimize --evolve``: GEPA over the suite's items; the best prompt becomes a variant
    (active unless ``--no-activate``)."""
    from ralph_tui.batch.local import LocalExecutor
    from ralph_tui.optimize.evolve import evolve

    if not args.suite:
        raise SuiteError("--evolve needs --suite: a JSONL file or `sample`")
    if args.budget < 1 or args.concurrency < 1:
        raise SuiteError("--budget and --concurrency are at least 1")
    items: list[EvalItem] = sample_suite() if args.suite == "sample" else load_suite(
        Path(args.suite), settings)  # fmt: skip
    name = "sample" if args.suite == "sample" else Path(args.suite).stem
    components = tuple(c.strip() for c in args.components.split(",") if c.strip())
    result = evolve(
        settings, items, LocalExecutor(args.concurrency), components=components,
        max_metric_calls=args.budget, max_usd=args.max_usd,
        run_dir=evals_dir(settings.out_dir).parent / "optimize" / f"gepa-{name}",
    )  # fmt: skip
    store = VariantStore(settings.out_dir)
    improved = result.best.id != result.seed.id
    if improved and not args.no_activate:
        store.activate(result.best.id)
    spent = f"${result.spend.usd:.4f}" + (
        f" (+{result.spend.unknown} calls of unknown price)" if result.spend.unknown else ""
    )
    if args.json:
        print(json.dumps({
            "best": result.best.id, "seed": result.seed.id, "spentUsd": result.spend.usd,
            "candidates": [{"variant": v.id, "score": score} for v, score in result.scores],
            "active": store.active_id(),
        }))  # fmt: skip
        return ExitCode.OK
    print(f"evolved {', '.join(components)} over {len(items)} items; spent {spent}")
    for variant, score in result.scores:
        mark = ">" if variant.id == store.active_id() else " "
        seed = "  (seed)" if variant.id == result.seed.id else ""
        print(f"{mark} {variant.id}  validation score {score:.2f}{seed}")
    verdict = f"best: {result.best.id}" if improved else "no prompt beat the seed's"
    print(f"{verdict}; active variant: {store.active_id() or 'none'}")
    return ExitCode.OK
