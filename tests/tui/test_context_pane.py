"""The Context tab: the active context's size against its budget, the summary DAG as a
tree, and ``enter`` showing a summary whole."""

from __future__ import annotations

from textual.widgets import Label, OptionList, Static, TabbedContent

from ralph_tui.events import ContextCompacted, ContextSize, SummaryNode
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.summary_modal import SummaryModal
from ralph_tui.tui.widgets.context_pane import ContextPane, size_bar
from tests.tui.conftest import MakeApp, wait_for

LEAVES = [
    SummaryNode(id="S0001", kind="leaf", depth=1, first=1, last=9, tokens=120,
                text="Filters are backwashed every 48 hours (M4)."),
    SummaryNode(id="S0002", kind="leaf", depth=1, first=10, last=20, tokens=90,
                text="Turbidity alarms escalate after 10 minutes."),
]  # fmt: skip
CONDENSED = SummaryNode(
    id="S0003", kind="condensed", depth=2, first=1, last=20, tokens=80,
    covers=["S0001", "S0002"], text="Backwash every 48 h; alarms escalate after 10 min.",
)  # fmt: skip


async def test_the_context_tab_shows_the_budget_and_the_summary_tree(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        monitor = screen.monitor
        monitor.feed(
            [
                ContextCompacted(
                    agent="worker", status="compacted", before_tokens=25_000,
                    after_tokens=9_000, summaries=["S0003"], levels=[1],
                    dag=[*LEAVES, CONDENSED], top=["S0003"],
                ),
                ContextSize(agent="worker", tokens=9_000, soft=20_000, hard=27_000,
                            messages=42, summaries=1),
            ]
        )  # fmt: skip
        monitor.query_one("#extras", TabbedContent).active = "tab-context"
        await pilot.pause()
        pane = monitor.query_one(ContextPane)
        bar = str(pane.query_one("#context-size", Static).render())
        assert bar.startswith("worker ") and "9,000 / 27,000 tokens (compacts at 20,000)" in bar
        tree = pane.query_one(OptionList)
        lines = [str(tree.get_option_at_index(i).prompt) for i in range(tree.option_count)]
        assert lines[0].startswith("S0003  condensed, depth 2, messages 1-20")
        assert lines[1].startswith("  └ S0001") and lines[2].startswith("  └ S0002")
        tree.focus()
        tree.highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryModal))
        where = str(app.screen.query_one("#summary-where", Label).render())
        assert where.startswith("S0001 — leaf, depth 1") and "messages 1-9" in where
        assert "backwashed every 48 hours" in str(app.screen.query_one("#summary-text").render())


def test_the_bar_turns_to_a_warning_past_the_soft_limit() -> None:
    size = ContextSize(agent="doc_reader", tokens=21_000, soft=20_000, hard=27_000,
                       messages=9, summaries=0)  # fmt: skip
    bar = size_bar(size)
    assert "21,000 / 27,000" in bar.plain and bar.plain.count("█") == 23
