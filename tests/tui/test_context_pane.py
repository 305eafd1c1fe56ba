"""The Context tab: the active context's size against its budget, the summary DAG as a
tree, and ``enter`` showing a summary whole."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Label, OptionList, Static, TabbedContent

from ralph_tui.events import ContextCompacted, ContextSize, SummaryNode
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.types import ChatMessage, ToolCall
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.summary_modal import SummaryModal, expanded
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


def write_store(path: Path) -> None:
    store = MessageStore(path)
    store.append(ChatMessage(role="user", content="query: backwash?"))
    for n in range(1, 21):
        call = ToolCall(id=f"t{n}", name="submit_output", arguments=f'{{"code": "step({n})"}}')
        store.append(ChatMessage(role="assistant", tool_calls=[call]))


async def test_the_context_tab_shows_the_budget_and_the_summary_tree(
    make_app: MakeApp, tmp_path: Path
) -> None:
    store = tmp_path / "context-01-worker.jsonl"
    write_store(store)
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
                    dag=[*LEAVES, CONDENSED], top=["S0003"], store=str(store),
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
        text = str(app.screen.query_one("#summary-text").render())
        assert "backwashed every 48 hours" in text
        assert "The 9 messages it covers, whole:" in text
        assert "M1 assistant" in text and "M9 assistant" in text and "M10" not in text
        assert '→ submit_output({"code": "step(9)"})' in text


def test_a_store_that_is_gone_is_said_plainly(tmp_path: Path) -> None:
    text = expanded(LEAVES[0], tmp_path / "gone.jsonl").plain
    assert "does not hold messages 1-9" in text
    assert "kept whole" in expanded(LEAVES[0], None).plain


def test_the_bar_turns_to_a_warning_past_the_soft_limit() -> None:
    size = ContextSize(agent="doc_reader", tokens=21_000, soft=20_000, hard=27_000,
                       messages=9, summaries=0)  # fmt: skip
    bar = size_bar(size)
    assert "21,000 / 27,000" in bar.plain and bar.plain.count("█") == 23
