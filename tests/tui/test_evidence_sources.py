"""The Output pane says which file and page each quote is from, and the evidence modal opens
the passage in that file and page (a generated PDF)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Label, OptionList, TextArea

from ralph_tui.tui.core.evidence import check_quotes
from ralph_tui.tui.screens.evidence_modal import EvidenceModal
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.output_pane import quote_option
from tests.documents.fixtures import write_pdf
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import scripted_runner

PAGE_TWO = "The backwash pump runs for ten minutes at every backwash."


async def test_a_quote_from_a_pdf_page_opens_on_that_page(
    make_app: MakeApp, tmp_path: Path
) -> None:
    pdf = write_pdf(
        tmp_path / "manual.pdf",
        [["Chapter one covers the intake screens."], ["Pumps.", PAGE_TWO, "Checked weekly."]],
    )
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.query_one("#query", TextArea).load_text("How long does the pump run?")
        screen.form.set_document(pdf)
        screen.form.query_one("#provider", ChoiceCycle).value = "offline"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        output = screen.monitor.output
        output.show({"answer": "- ten minutes", "evidence": [PAGE_TWO]})
        await wait_for(pilot, lambda: output.corpus is not None)
        [quote] = output.quotes
        start = len("Pumps.\n")
        where = f"manual.pdf p. 2, chars {start}-{start + len(PAGE_TWO)}"
        assert quote.verified and quote.source == where
        options = output.query_one(OptionList)
        assert f"[{where}]" in str(options.get_option_at_index(0).prompt)
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvidenceModal))
        modal = app.screen
        assert isinstance(modal, EvidenceModal) and modal.place is not None
        where = str(modal.query_one("#evidence-where", Label).render())
        assert where.startswith("manual.pdf p. 2, line 2")
        assert modal.place.before == "Pumps.\n" and modal.place.after == "\nChecked weekly."
        assert not modal.place.clipped_start and not modal.place.clipped_end


def test_a_quote_spanning_lines_is_listed_on_one_line() -> None:
    [quote] = check_quotes(
        ["runs for ten\nminutes at every backwash."], "It runs for ten\nminutes at every backwash."
    )
    assert quote.verified and quote.one_line == "runs for ten minutes at every backwash."
    assert "\n" not in str(quote_option(quote, 1).prompt)
