"""The Evals screen: every eval run of the out dir, and the highlighted one's score table
with its plot of found and passed against the context size."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from ralph_tui.evals.plot import text_plot
from ralph_tui.evals.report import score_table
from ralph_tui.evals.scoring import ItemScore, SuiteSummary, summarise
from ralph_tui.evals.store import evals_dir, list_evals, ordered_scores
from ralph_tui.tui.context import app_context
from ralph_tui.tui.worker_errors import forward_worker_error

NO_EVALS = "No evals yet. Run one: ralph-tui eval --suite sample (or needle, or a JSONL suite)."


def eval_option(eval_id: str, summary: SuiteSummary | None) -> Option:
    figures = (
        f"{summary.items} items, found {summary.found:.0%}, passed {summary.passed:.0%}"
        if summary
        else "not finished"
    )
    return Option(f"{eval_id}\n  {figures}", id=eval_id)


def eval_report(eval_id: str, scores: list[ItemScore]) -> str:
    """The table and the plot (for a needle suite the table holds its own by size)."""
    summary = summarise(scores)
    lines = score_table(eval_id, scores, summary)
    if not summary.by_size_depth:
        lines += ["", "found by context size:", *text_plot(scores)]
    return "\n".join(lines)


class EvalsScreen(Screen[None]):
    """Eval runs on the left, the highlighted one's table and plot on the right."""

    DEFAULT_CSS = """
    EvalsScreen #evals-list { width: 44; border: round $primary 50%; }
    EvalsScreen #eval-report-box { border: round $primary 50%; padding: 0 1; }
    EvalsScreen #eval-report { width: auto; text-wrap: nowrap; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", "Reload", id="evals.reload", tooltip="Read the evals again"),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield OptionList(id="evals-list")
            # Scrolls both ways: a table's rows stay whole however narrow the terminal.
            with ScrollableContainer(id="eval-report-box"):
                yield Static(NO_EVALS, id="eval-report", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#evals-list").border_title = "Evals"
        self.action_reload()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self._load_list()

    @work(thread=True, exclusive=True, group="evals-list", exit_on_error=False)
    def _load_list(self) -> None:
        evals = list_evals(app_context(self.app).settings.out_dir)
        self.app.call_from_thread(self._show_list, evals)

    def _show_list(self, evals: list[tuple[str, SuiteSummary | None]]) -> None:
        options = self.query_one("#evals-list", OptionList)
        highlighted = options.highlighted_option.id if options.highlighted_option else None
        options.clear_options()
        options.add_options([eval_option(i, s) for i, s in evals])
        if not evals:
            self.query_one("#eval-report", Static).update(NO_EVALS)
            return
        ids = [i for i, _ in evals]
        options.highlighted = ids.index(highlighted) if highlighted in ids else 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self._load_report(event.option.id)

    @work(thread=True, exclusive=True, group="eval-report", exit_on_error=False)
    def _load_report(self, eval_id: str) -> None:
        folder = evals_dir(app_context(self.app).settings.out_dir) / eval_id
        scores = ordered_scores(folder)
        text = eval_report(eval_id, scores) if scores else f"{eval_id}: no item finished yet."
        self.app.call_from_thread(self.query_one("#eval-report", Static).update, text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)
