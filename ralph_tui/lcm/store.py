"""Every message of an agent run, append-only, each with an id and a token estimate;
persisted as JSON lines so a session can be replayed and resumed."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from ralph_tui.atomic import append_line
from ralph_tui.json_input import parse_json
from ralph_tui.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from ralph_tui.llm.types import ChatMessage, ToolCall

MAX_LINE_BYTES = 16 * 2**20
"""The longest stored message read back (the file lives in a session folder, which may come
from someone else); a longer line ends the conversation there, like a torn one."""


class StoredMessage(BaseModel):
    """One message of the conversation, as sent, with its place and size."""

    id: int
    role: str
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    tokens: int = 0
    closes_unusable_turn: bool = False
    """This message ends a turn that gave nothing usable (what was wrong with a refused
    output, or the reminder after a turn without a tool call): once a later such turn
    exists, the active context leaves this turn out (the store keeps it)."""

    def to_chat(self) -> ChatMessage:
        return ChatMessage(
            role=self.role,
            content=self.content,
            tool_calls=self.tool_calls,
            tool_call_id=self.tool_call_id,
        )


def message_tokens(message: ChatMessage) -> int:
    calls = "".join(call.name + call.arguments for call in message.tool_calls)
    return estimate_tokens(message.content + calls) + MESSAGE_OVERHEAD_TOKENS


class MessageStore:
    """The conversation, in order; with a ``path``, each message is also appended there."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.messages: list[StoredMessage] = []

    def append(self, message: ChatMessage, *, closes_unusable_turn: bool = False) -> StoredMessage:
        stored = StoredMessage(
            closes_unusable_turn=closes_unusable_turn,
            id=len(self.messages),
            role=message.role,
            content=message.content,
            tool_calls=list(message.tool_calls),
            tool_call_id=message.tool_call_id,
            tokens=message_tokens(message),
        )
        self.messages.append(stored)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_line(self.path, stored.model_dump_json())
        return stored

    def __len__(self) -> int:
        return len(self.messages)

    def __getitem__(self, index: int) -> StoredMessage:
        return self.messages[index]

    @classmethod
    def load(cls, path: Path) -> MessageStore:
        """The store written at ``path`` (a torn last line, from a crash, is dropped; so is
        everything from a line past the bounds of ``parse_json``)."""
        store = cls(path)
        if path.is_file():
            for line in path.read_bytes().splitlines():
                try:
                    data = parse_json(line, str(path), max_bytes=MAX_LINE_BYTES)
                    store.messages.append(StoredMessage.model_validate(data))
                except ValueError:
                    break
        return store
