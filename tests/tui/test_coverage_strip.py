"""The coverage strip: a cell per page or section shaded by the part read, joined cells when
they do not fit, the line above it (and "Not found" for an answer of absence), hidden until
a run reports what it read, fed through the run's events like every pane."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult

from ralph_tui.events import CandidateProduced, CoverageUpdated, RunStarted
from ralph_tui.evidence import Coverage, DocumentCoverage
from ralph_tui.traces.models import IterationTrace
from ralph_tui.tui.session_detail import DETAIL_STRIP_CELLS, iteration_content
from ralph_tui.tui.widgets.coverage_strip import CoverageStrip, shade, strip_shares
from ralph_tui.tui.widgets.run_monitor import RunMonitor

SnapCompare = Callable[..., bool]

PDF = DocumentCoverage(
    document="manual.pdf",
    chars=400,
    spans=[(0, 100), (150, 175), (300, 350)],
    sections=[(0, 100), (100, 200), (200, 300), (300, 400)],
    section_kind="page",
)
NOTES = DocumentCoverage(document="notes.txt", chars=400, spans=[(200, 400)])
COVERAGE = Coverage(documents=[PDF, NOTES], searches=["saffron", "simmer"])


def test_each_page_is_shaded_by_the_part_of_it_read() -> None:
    assert [shade(s) for s in PDF.shares(PDF.sections)] == ["█", "░", "·", "▒"]
    only_pdf = Coverage(documents=[PDF])
    assert strip_shares(only_pdf, 8) == [1.0, 1.0, 0.25, 0.25, 0.0, 0.0, 0.5, 0.5]
    assert strip_shares(only_pdf, 6) == [1.0, 1.0, 0.25, 0.0, 0.0, 0.5]
    assert strip_shares(only_pdf, 2) == [(100 + 25) / 200, 50 / 200]


def test_a_document_without_pages_is_cut_into_parts_by_its_length() -> None:
    shares = strip_shares(COVERAGE, 8)
    assert shares == [1.0, 0.25, 0.0, 0.5, 0.0, 0.0, 1.0, 1.0]


class StripApp(App[None]):
    def __init__(self, coverage: Coverage, absent: bool) -> None:
        super().__init__()
        self.coverage, self.absent = coverage, absent

    def compose(self) -> ComposeResult:
        yield CoverageStrip(id="coverage")

    def on_mount(self) -> None:
        self.query_one(CoverageStrip).show(self.coverage, absent=self.absent)


def test_strip_snapshot(snap_compare: SnapCompare) -> None:
    assert snap_compare(StripApp(COVERAGE, absent=False), terminal_size=(60, 3))


def test_strip_snapshot_of_an_answer_of_absence(snap_compare: SnapCompare) -> None:
    assert snap_compare(StripApp(COVERAGE, absent=True), terminal_size=(90, 3))


class MonitorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RunMonitor(id="monitor")

    async def on_mount(self) -> None:
        await self.query_one(RunMonitor).compose_panes()  # as the run screen does


async def test_the_run_monitor_shows_coverage_once_a_run_reports_it() -> None:
    app = MonitorApp()
    async with app.run_test(size=(140, 40)) as pilot:
        monitor = app.query_one(RunMonitor)
        strip = monitor.query_one(CoverageStrip)
        assert not strip.display
        started = RunStarted(
            mode="qa", query="q", doc_path="/nonexistent", doc_chars=800, max_iters=1,
            generate_model="offline:baseline", validate_model="offline:baseline",
        )  # fmt: skip
        monitor.feed([started])
        monitor.feed([CoverageUpdated(iteration=1, coverage=COVERAGE)])
        await pilot.pause()
        assert strip.display and strip.coverage == COVERAGE and not strip.absent
        lacking = {"answer": "- The document does not address this question", "evidence": []}
        monitor.feed([CandidateProduced(iteration=1, output=lacking)])
        await pilot.pause()
        assert strip.absent
        monitor.reset()
        await pilot.pause()
        assert not strip.display


def test_the_session_screen_shows_an_iterations_coverage_under_read() -> None:
    lacking = {"answer": "- The document does not address this question", "evidence": []}
    trace = IterationTrace(iteration=1, output=lacking, coverage=COVERAGE)
    text = iteration_content(trace, None).plain.splitlines()
    at = text.index("Read")
    searched = "searched for: saffron, simmer"
    assert text[at + 1] == f"  Not found: read 47 % of 800 characters  {searched}"
    strip = text[at + 2].strip()
    assert strip.endswith(" parts") and len(strip) == DETAIL_STRIP_CELLS
    assert "Read" not in iteration_content(IterationTrace(iteration=2), None).plain.splitlines()
