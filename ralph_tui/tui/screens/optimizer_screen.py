"""The Optimizer screen: the variants table (measured or projected), the Pareto front as a
scatter of pass rate against latency, the active variant marked, and ``a`` to activate the
highlighted one. Nothing is proposed here: ``ralph-tui optimize`` does that."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from ralph_tui.optimize.report import TABLE_HEADER, candidate_line, front_plot
from ralph_tui.optimize.run import OptimizeReport, survey
from ralph_tui.tui.context import app_context
from ralph_tui.tui.worker_errors import forward_worker_error
from ralph_tui.variants.store import VariantStore

NO_SESSIONS = (
    "No finished sessions to measure yet. Run some (or an eval), then `ralph-tui optimize` "
    "to propose variants."
)


class OptimizerScreen(Screen[None]):
    """The front above, the variants below; ``a`` makes the highlighted variant active."""

    DEFAULT_CSS = """
    OptimizerScreen #front { height: auto; border: round $primary 50%; padding: 0 1; }
    OptimizerScreen #variants-header { color: $text-muted; padding: 0 1; }
    OptimizerScreen #variants {
        height: 1fr; border: round $primary 50%; text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "activate", "Activate", id="optimizer.activate",
                tooltip="Make the highlighted variant the one later runs use"),
        Binding("r", "reload", "Reload", id="optimizer.reload", tooltip="Measure again"),
    ]  # fmt: skip

    def __init__(self) -> None:
        super().__init__()
        self.report: OptimizeReport | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(NO_SESSIONS, id="front", markup=False)
            yield Static(TABLE_HEADER, id="variants-header", markup=False)
            yield OptionList(id="variants")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#front").border_title = "Pareto front: pass rate against latency"
        self.query_one("#variants").border_title = "Variants (> active, * on the front)"
        self.action_reload()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="optimizer", exit_on_error=False)
    def _load(self) -> None:
        report = survey(app_context(self.app).settings)
        self.app.call_from_thread(self.show, report)

    def show(self, report: OptimizeReport) -> None:
        self.report = report
        front = "\n".join(front_plot(report)) if report.candidates else NO_SESSIONS
        self.query_one("#front", Static).update(front)
        options = self.query_one("#variants", OptionList)
        at = options.highlighted
        options.clear_options()
        options.add_options(
            [Option(candidate_line(c, report), id=c.variant) for c in report.candidates]
        )
        if report.candidates:
            options.highlighted = min(at or 0, len(report.candidates) - 1)

    def action_activate(self) -> None:
        option = self.query_one("#variants", OptionList).highlighted_option
        if option is None or option.id is None:
            self.notify("No variant to activate yet.", severity="warning")
            return
        VariantStore(app_context(self.app).settings.out_dir).activate(option.id)
        self.notify(f"Active variant: {option.id}. Later runs use it.")
        self.action_reload()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)
