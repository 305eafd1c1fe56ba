"""An eval run: its items run as sessions through an executor, each scored as it finishes
and kept under ``<out>/evals/<id>/`` (``suite.jsonl``, ``results.jsonl``, ``summary.json``,
``plot.html``). Run again with the same id, it skips the items already finished."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.atomic import append_line, write_atomic
from ralph_tui.batch.jobs import JobResult, SessionJob
from ralph_tui.batch.local import Executor, Progress
from ralph_tui.config import Settings
from ralph_tui.documents import Limits, read_corpus
from ralph_tui.evals.plot import write_plot
from ralph_tui.evals.scoring import ItemScore, score_item, summarise
from ralph_tui.evals.store import (
    PLOT_FILE,
    RESULTS_FILE,
    SUITE_FILE,
    SUMMARY_FILE,
    evals_dir,
    ordered_scores,
    read_scores,
)
from ralph_tui.evals.suite import EvalItem, SuiteError, load_suite, write_suite
from ralph_tui.loops.runner import extraction_cache


def new_eval_id(suite_name: str) -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{suite_name}"


@dataclass
class EvalRun:
    """An eval's folder: its items and the scores of those finished."""

    id: str
    folder: Path
    items: list[EvalItem]

    @classmethod
    def open(cls, out_dir: Path, eval_id: str, items: list[EvalItem]) -> EvalRun:
        """The eval ``eval_id``: created with ``items``, or taken up again when it exists
        with the same items (``SuiteError`` if its items differ)."""
        folder = evals_dir(out_dir) / eval_id
        suite = folder / SUITE_FILE
        if suite.is_file():
            kept = load_suite(suite)
            if [i.model_dump() for i in kept] != [i.model_dump() for i in items]:
                raise SuiteError(f"the eval {eval_id!r} exists with other items; pick another --id")
        else:
            write_suite(suite, items)
        return cls(eval_id, folder, items)

    def finished(self) -> dict[str, ItemScore]:
        """Scores already kept."""
        return read_scores(self.folder)

    def keep(self, score: ItemScore) -> None:
        append_line(self.folder / RESULTS_FILE, score.model_dump_json())

    def write_summary(self) -> list[ItemScore]:
        """Write the summary and the plot of the finished items; their scores, in the
        suite's order."""
        scores = ordered_scores(self.folder)
        write_atomic(self.folder / SUMMARY_FILE, summarise(scores).model_dump_json(indent=2))
        write_plot(self.folder / PLOT_FILE, self.id, scores)
        return scores


def job_of(item: EvalItem) -> SessionJob:
    return SessionJob(key=item.id, mode=item.mode, query=item.query, docs=(str(item.doc),))


async def run_eval(
    run: EvalRun,
    settings: Settings,
    executor: Executor,
    on_progress: Callable[[Progress, ItemScore], None] | None = None,
) -> list[ItemScore]:
    """Run the items not finished yet; each is scored and kept as it finishes, so a
    cancelled run keeps what finished."""
    done = run.finished()
    todo = [item for item in run.items if item.id not in done]
    by_id = {item.id: item for item in todo}
    progress = Progress(total=len(todo))

    def finished(result: JobResult) -> None:
        item = by_id[result.key]
        score = score_item(item, result.outcome, document_text(item, settings), result.wall_s)
        run.keep(score)
        progress.add(result)
        if on_progress is not None:
            on_progress(progress, score)

    try:
        await executor.run([job_of(item) for item in todo], settings, finished)
    finally:
        scores = run.write_summary()
    return scores


def document_text(item: EvalItem, settings: Settings) -> str:
    """The item's document as the run read it (from the extraction cache)."""
    corpus = read_corpus([item.doc], Limits.of(settings), None, extraction_cache(settings))
    return corpus.text
