"""Where evals are kept — ``<out>/evals/<id>/`` with ``suite.jsonl``, ``results.jsonl``,
``summary.json`` and ``plot.html`` — and reading them back (what the app lists)."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.evals.scoring import ItemScore, SuiteSummary
from ralph_tui.json_input import parse_json, read_json

SUITE_FILE, RESULTS_FILE, SUMMARY_FILE, PLOT_FILE = (
    "suite.jsonl",
    "results.jsonl",
    "summary.json",
    "plot.html",
)


def evals_dir(out_dir: Path) -> Path:
    return out_dir / "evals"


def read_scores(folder: Path) -> dict[str, ItemScore]:
    """The scores kept in an eval's folder, by item, in the order they finished (a torn
    last line, from a crash, is dropped)."""
    path = folder / RESULTS_FILE
    scores: dict[str, ItemScore] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                score = ItemScore.model_validate(parse_json(line, str(path)))
            except ValueError:
                continue
            scores[score.id] = score
    return scores


def ordered_scores(folder: Path) -> list[ItemScore]:
    """The kept scores in the suite's order (as the CLI prints them), whatever order the
    items finished in."""
    scores = read_scores(folder)
    order: dict[str, int] = {}
    try:
        for number, line in enumerate((folder / SUITE_FILE).read_text("utf-8").splitlines()):
            order.setdefault(str(parse_json(line, SUITE_FILE).get("id")), number)
    except (OSError, ValueError, AttributeError):
        pass
    return sorted(scores.values(), key=lambda s: order.get(s.id, len(order)))


def list_evals(out_dir: Path) -> list[tuple[str, SuiteSummary | None]]:
    """Every eval under the out dir, newest first, with its summary when written."""
    folder = evals_dir(out_dir)
    found = []
    for path in sorted(folder.iterdir(), reverse=True) if folder.is_dir() else []:
        summary = path / SUMMARY_FILE
        try:
            data = SuiteSummary.model_validate(read_json(summary))
        except (OSError, ValueError):
            data = None
        if (path / SUITE_FILE).is_file():
            found.append((path.name, data))
    return found
