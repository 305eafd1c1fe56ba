"""One summary of an agent's context, whole: what it covers and its text."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from ralph_tui.events import SummaryNode
from ralph_tui.tui.screens.evidence_modal import InPlaceModal

LEVEL_NOTE = "The messages it covers are kept whole in the session's context-XX-<agent>.jsonl."


class SummaryModal(InPlaceModal):
    """``node``: its id, kind, depth, span of messages, tokens, and text."""

    WHERE_ID = "summary-where"
    TEXT_ID = "summary-text"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="summary.close"),
    ]

    def __init__(self, node: SummaryNode) -> None:
        super().__init__()
        self.node = node

    def where(self) -> str:
        n = self.node
        covers = ", ".join(n.covers) if n.kind == "condensed" else f"messages {n.first}-{n.last}"
        return f"{n.id} — {n.kind}, depth {n.depth}, {n.tokens:,} tokens — covers {covers}"

    def body(self) -> Content:
        return Content.assemble(self.node.text, "\n\n", (LEVEL_NOTE, "$text-muted"))
