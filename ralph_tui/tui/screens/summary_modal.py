"""One summary of an agent's context, whole and expanded: what it covers, its text, then
the original messages it covers, read back from the conversation's store."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from ralph_tui.events import SummaryNode
from ralph_tui.lcm.store import MessageStore, StoredMessage
from ralph_tui.tui.screens.evidence_modal import InPlaceModal

EXPANDED_CHARS = 40_000
"""The originals shown at most (the store keeps them all)."""
NO_STORE = "The messages it covers are kept whole in the session's context-XX-<agent>.jsonl."


def message_text(message: StoredMessage) -> str:
    """A stored message as it reads: its text, then each tool call it made."""
    calls = [f"→ {call.name}({call.arguments})" for call in message.tool_calls]
    return "\n".join(part for part in [message.content, *calls] if part)


def expanded(node: SummaryNode, store: Path | None) -> Content:
    """The original messages ``node`` covers (``first``-``last``), each under its id and
    role, cut at ``EXPANDED_CHARS``; or why they cannot be shown."""
    if store is None:
        return Content.styled(NO_STORE, "$text-muted")
    messages = MessageStore.load(store).messages[node.first : node.last + 1]
    if not messages:
        return Content.styled(f"The store {store} does not hold messages {node.first}-"
                              f"{node.last} (moved or deleted).", "$text-warning")  # fmt: skip
    parts: list[Content | str] = [
        (Content.styled(f"The {len(messages)} messages it covers, whole:", "bold"))
    ]
    shown = 0
    for message in messages:
        text = message_text(message)
        if shown + len(text) > EXPANDED_CHARS:
            rest = node.last - message.id + 1
            parts.append(Content.styled(f"\n… {rest} more messages in {store}", "$text-muted"))
            break
        shown += len(text)
        parts += ["\n\n", Content.styled(f"M{message.id} {message.role}", "$text-primary"), "\n"]
        parts.append(text)
    return Content.assemble(*parts)


class SummaryModal(InPlaceModal):
    """``node``: its id, kind, depth, span of messages, tokens, and text; then, from
    ``store``, the messages it covers."""

    WHERE_ID = "summary-where"
    TEXT_ID = "summary-text"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="summary.close"),
    ]

    def __init__(self, node: SummaryNode, store: Path | None = None) -> None:
        super().__init__()
        self.node = node
        self.store = store

    def where(self) -> str:
        n = self.node
        covers = ", ".join(n.covers) if n.kind == "condensed" else f"messages {n.first}-{n.last}"
        return f"{n.id} — {n.kind}, depth {n.depth}, {n.tokens:,} tokens — covers {covers}"

    def body(self) -> Content:
        return Content.assemble(self.node.text, "\n\n", expanded(self.node, self.store))
