"""The agent's active context: its size against the budget as a bar, and the summary DAG
as a tree (id, depth, messages covered, tokens); ``enter`` on a summary shows it whole,
expanded into the original messages it covers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ralph_tui.tui.core.run_progress import RunProgress

if TYPE_CHECKING:
    from ralph_tui.events import ContextCompacted, ContextSize, SummaryNode

BAR_CELLS = 30
NO_CONTEXT = "No agent step yet."


def size_bar(size: ContextSize | None) -> Content:
    """``worker ████████░░░░ 12,345 / 27,648 tokens (compacts at 20,736)``."""
    if size is None:
        return Content.styled(NO_CONTEXT, "$text-muted")
    filled = min(BAR_CELLS, round(BAR_CELLS * size.tokens / max(size.hard, 1)))
    style = "$text-warning" if size.tokens > size.soft else "$text-success"
    return Content.assemble(
        (f"{size.agent} ", "bold"),
        ("█" * filled, style),
        ("░" * (BAR_CELLS - filled), "$text-muted"),
        f" {size.tokens:,} / {size.hard:,} tokens (compacts at {size.soft:,}); "
        f"{size.messages:,} messages, {size.summaries} summaries in context",
    )


def tree_order(compaction: ContextCompacted) -> list[tuple[SummaryNode, int]]:
    """The summaries from the active context's down, each with its indent."""
    nodes = {node.id: node for node in compaction.dag}
    ordered: list[tuple[SummaryNode, int]] = []

    def visit(node_id: str, indent: int) -> None:
        node = nodes.get(node_id)
        if node is None:
            return
        ordered.append((node, indent))
        if node.kind == "condensed":
            for child in node.covers:
                visit(child, indent + 1)

    for top in compaction.top:
        visit(top, 0)
    return ordered


def node_option(node: SummaryNode, indent: int) -> Option:
    return Option(
        Content.assemble(
            ("  " * indent + ("└ " if indent else ""), "$text-muted"),
            (node.id, "bold"),
            f"  {node.kind}, depth {node.depth}, messages {node.first}-{node.last}",
            (f"  {node.tokens:,} tokens", "$text-muted"),
        )
    )


class ContextPane(Vertical):
    """``size_bar`` above the summary tree of the newest compaction."""

    DEFAULT_CSS = """
    ContextPane > #context-size { height: auto; padding: 0 1; }
    ContextPane > #context-reason { height: auto; padding: 0 1; color: $text-warning; }
    ContextPane > #context-tree { height: 1fr; border: none; padding: 0; }
    """

    class SummaryChosen(Message):
        def __init__(self, node: SummaryNode, store: str) -> None:
            super().__init__()
            self.node = node
            self.store = store
            """The conversation's store file, to expand the summary from ("" if none)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.nodes: list[SummaryNode] = []
        self.store = ""

    def compose(self) -> ComposeResult:
        yield Static(size_bar(None), id="context-size")
        yield Static("", id="context-reason", markup=False)
        yield OptionList(id="context-tree")

    def show(self, progress: RunProgress) -> None:
        self.query_one("#context-size", Static).update(size_bar(progress.context_size))
        compaction = progress.compaction
        reason = self.query_one("#context-reason", Static)
        reason.update(compaction.reason if compaction is not None else "")
        reason.display = bool(compaction is not None and compaction.reason)
        ordered = tree_order(compaction) if compaction is not None else []
        self.nodes = [node for node, _indent in ordered]
        self.store = compaction.store if compaction is not None else ""
        options = self.query_one("#context-tree", OptionList)
        options.clear_options()
        options.add_options([node_option(node, indent) for node, indent in ordered])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.nodes):
            self.post_message(self.SummaryChosen(self.nodes[event.option_index], self.store))
