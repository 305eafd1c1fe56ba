"""``ralph-tui eval``: run a suite (a JSONL file, or the built-in ``needle`` and ``sample``)
as traced sessions, print the score table, and keep the results under ``<out>/evals/<id>/``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ralph_tui.batch.local import Executor, LocalExecutor, Progress
from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.cli.stopping import run_async
from ralph_tui.config import Settings, with_values
from ralph_tui.config.inner_modes import INNER_MODES
from ralph_tui.errors import ExitCode, as_ralph_error
from ralph_tui.evals.needle import (
    DEFAULT_DEPTHS,
    DEFAULT_SIZES,
    needle_suite,
    parse_depth,
    parse_size,
)
from ralph_tui.evals.report import modes_table, score_table
from ralph_tui.evals.run import EvalRun, new_eval_id, run_eval
from ralph_tui.evals.sample import sample_suite
from ralph_tui.evals.scoring import ItemScore, SuiteSummary, summarise
from ralph_tui.evals.store import PLOT_FILE, evals_dir, list_evals
from ralph_tui.evals.suite import EvalItem, SuiteError, load_suite

BUILT_IN = ("needle", "sample")


def run_eval_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if args.list:
        return _list(settings, args.json)
    if not args.suite:
        raise SuiteError("--suite is required: a JSONL file, `needle` or `sample`")
    if args.concurrency < 1:
        raise SuiteError("--concurrency is at least 1")
    modes = inner_modes(args.inner_modes)
    name, items = _suite(args, settings)
    eval_id = args.eval_id or new_eval_id(name)
    executor = _executor(args)
    if len(modes) < 2:
        if modes:
            settings = with_values(settings, {"inner": modes[0]}, "--inner")
        run, scores, summary = _run_suite(settings, eval_id, items, executor, "")
        if args.json:
            print(json.dumps(_result_json(run, scores, summary)))
        else:
            print("\n".join(score_table(eval_id, scores, summary)))
            print(f"\nresults: {run.folder}  plot: {run.folder / PLOT_FILE}")
        return ExitCode.OK if summary.found == 1.0 else ExitCode.FAILED
    compared = []
    for mode in modes:
        under = with_values(settings, {"inner": mode}, "--inner")
        compared.append((mode, *_run_suite(under, f"{eval_id}-{mode}", items, executor, mode)))
    if args.json:
        print(json.dumps({"modes": [
            {"inner": mode, **_result_json(run, scores, summary)}
            for mode, run, scores, summary in compared
        ]}))  # fmt: skip
    else:
        rows = [(mode, summary) for mode, _, _, summary in compared]
        print("\n".join(modes_table(eval_id, rows)))
        print("\nresults: " + "  ".join(str(run.folder) for _, run, _, _ in compared))
    found_all = all(summary.found == 1.0 for *_, summary in compared)
    return ExitCode.OK if found_all else ExitCode.FAILED


def inner_modes(given: str | None) -> list[str]:
    """The inner modes ``--inner`` names (comma-separated, each once, in order); none when
    it was not given. ``SuiteError`` for a name that is not a mode."""
    if given is None:
        return []
    modes = list(dict.fromkeys(part.strip() for part in given.split(",") if part.strip()))
    unknown = [mode for mode in modes if mode not in INNER_MODES]
    if unknown or not modes:
        raise SuiteError(
            f"--inner {given!r}: {', '.join(unknown) or 'no mode'} is not an inner mode; "
            f"give one or more of {', '.join(INNER_MODES)}, comma-separated"
        )
    return modes


def _run_suite(
    settings: Settings, eval_id: str, items: list[EvalItem], executor: Executor, mode: str
) -> tuple[EvalRun, list[ItemScore], SuiteSummary]:
    """Run the items (those not finished in an eval of this id before) and score them."""
    run = EvalRun.open(settings.out_dir, eval_id, items)
    skipped = len(run.finished())
    if skipped:
        print(f"eval {eval_id}: {skipped} items finished before, skipped", file=sys.stderr)
    under = f" [{mode}]" if mode else ""

    def progress(state: Progress, score: ItemScore) -> None:
        mark = "found" if score.found else "missed"
        print(f"  {score.id}{under}: {score.status}, {mark} ({state.line()})", file=sys.stderr)

    try:
        scores = run_async(run_eval(run, settings, executor, progress))
    except KeyboardInterrupt as stop:
        error = as_ralph_error(stop)
        error.hint = f"finished items are kept in {run.folder}"
        raise error from None
    return run, scores, summarise(scores)


def _result_json(run: EvalRun, scores: list[ItemScore], summary: SuiteSummary) -> dict[str, Any]:
    return {
        "id": run.id,
        "folder": str(run.folder),
        "summary": summary.model_dump(),
        "items": [s.model_dump() for s in scores],
    }


def _suite(args: argparse.Namespace, settings: Settings) -> tuple[str, list[EvalItem]]:
    if args.suite == "sample":
        return "sample", sample_suite()
    if args.suite == "needle":
        sizes = tuple(parse_size(s) for s in args.sizes.split(",")) if args.sizes else DEFAULT_SIZES
        depths = (
            tuple(parse_depth(d) for d in args.depths.split(",")) if args.depths else DEFAULT_DEPTHS
        )
        folder = evals_dir(settings.out_dir) / "needle-docs" / f"seed{args.seed}"
        return "needle", needle_suite(folder, sizes, depths, args.seed)
    if args.sizes or args.depths:
        raise SuiteError("--sizes and --depths are for the needle suite")
    path = Path(args.suite)
    return path.stem, load_suite(path, settings)


def _executor(args: argparse.Namespace) -> Executor:
    if args.executor == "ray":
        from ralph_tui.batch.ray_executor import RayExecutor

        return RayExecutor(address=args.ray_address, concurrency=args.concurrency)
    if args.ray_address:
        raise SuiteError("--ray-address needs --executor ray")
    return LocalExecutor(args.concurrency)


def _list(settings: Settings, as_json: bool) -> int:
    evals = list_evals(settings.out_dir)
    if as_json:
        print(json.dumps([{"id": i, "summary": s.model_dump() if s else None} for i, s in evals]))
        return ExitCode.OK
    if not evals:
        print(f"no evals in {evals_dir(settings.out_dir)} yet: run `ralph-tui eval --suite sample`")
    for eval_id, summary in evals:
        text = (f"{summary.items} items, passed {summary.passed:.0%}, found {summary.found:.0%}"
                if summary else "not finished")  # fmt: skip
        print(f"{eval_id}  {text}")
    return ExitCode.OK
