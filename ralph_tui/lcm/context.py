"""The active context: ``[system, summaries..., fresh tail]`` within a token budget.

Between compactions it only grows at its end (new messages are appended, nothing before
them is rewritten), so each request's prefix is the previous one's, byte for byte. The fresh
tail — the last messages, never splitting an assistant's tool call from its results — stays
raw. Every raw message stays reachable: through the summaries that cover it (``expand``).

One exception keeps a model that fails the same way from paying for it again at every step:
of the turns that gave nothing usable (a refused output, no tool call), only the latest is
in the context; an earlier one is left out, whole, once a later one comes (the prefix before
it stays as it was). The store keeps them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ralph_tui.lcm.compaction import (
    CompactionReport,
    Summariser,
    fits,
    frame_tokens,
    truncate,
    write_summary,
)
from ralph_tui.lcm.dag import Summary, message_id, summary_header
from ralph_tui.lcm.store import MessageStore, StoredMessage, message_tokens
from ralph_tui.llm.tokens import CHARS_PER_TOKEN, estimate_tokens
from ralph_tui.llm.types import ChatMessage

MIN_HARD_TOKENS = 256
"""Room for the system prompt, the frame of the summaries and a cut last message."""
FAN_IN = 4
"""Summaries condensed into one at most."""
SUMMARIES_INTRO = "Earlier in this conversation (summaries; expand(id) gives the originals):"
CUT_NOTE = "\n[cut to fit the context; the store keeps the whole message]"


@dataclass(frozen=True)
class Budget:
    """``soft``: compaction starts above it; ``hard``: the context never goes above it;
    ``fresh_tail``: the last messages kept raw (more when a tool call would be split)."""

    soft: int
    hard: int
    fresh_tail: int = 8
    summary_target: int = 400

    def __post_init__(self) -> None:
        if not self.hard >= MIN_HARD_TOKENS or not 0 < self.soft <= self.hard:
            raise ValueError(
                f"a context budget needs 0 < soft <= hard and hard >= {MIN_HARD_TOKENS} "
                f"(got soft {self.soft}, hard {self.hard})"
            )

    @classmethod
    def of_window(cls, window_tokens: int, reply_tokens: int = 4096) -> Budget:
        """A budget for a model with ``window_tokens`` of context: the hard limit leaves
        room for the reply and a margin for the token estimate; compaction starts at 3/4."""
        hard = max(1024, int((window_tokens - reply_tokens) * 0.9))
        return cls(soft=hard * 3 // 4, hard=hard)


@dataclass
class ActiveContext:
    """The prompt of each step, over ``store``: summaries first, then raw messages from
    ``raw_from`` on."""

    system: str
    store: MessageStore
    budget: Budget
    summaries: dict[str, Summary] = field(default_factory=dict)
    top: list[str] = field(default_factory=list)
    """The summaries in the active context, oldest span first."""
    raw_from: int = 0
    truncated_tail: bool = False

    def append(self, message: ChatMessage, *, closes_unusable_turn: bool = False) -> StoredMessage:
        return self.store.append(message, closes_unusable_turn=closes_unusable_turn)

    def shrink_budget(self, share: float = 0.7) -> bool:
        """Lower the limits to ``share`` of what was just sent (the model's window was
        smaller than believed: a server refused the prompt as too long); false when that
        would go under the least workable limit."""
        hard = int(min(self.budget.hard, self.tokens()) * share)
        if hard < MIN_HARD_TOKENS:
            return False
        self.budget = replace(self.budget, soft=hard * 3 // 4, hard=hard)
        return True

    def raw(self, end: int | None = None) -> list[StoredMessage]:
        """The messages from ``raw_from`` to ``end`` that the context shows (the superseded
        unusable turns left out)."""
        left_out = superseded_turns(self.store.messages)
        return [m for m in self.store.messages[self.raw_from : end] if m.id not in left_out]

    def tokens(self) -> int:
        """The active context's size, as rendered (the estimate)."""
        return sum(message_tokens(m) for m in self.render())

    def render(self) -> list[ChatMessage]:
        """The messages to send: system, one message of summaries (if any), the raw rest;
        a last group too big for the hard limit alone is cut (the store keeps it whole)."""
        messages = [ChatMessage(role="system", content=self.system)]
        if self.top:
            parts = [SUMMARIES_INTRO, *(self.summaries[s].rendered() for s in self.top)]
            messages.append(ChatMessage(role="user", content="\n\n".join(parts)))
        raw = [m.to_chat() for m in self.raw()]
        if self.truncated_tail:
            raw = self._cut_to_fit(messages, raw)
        return messages + raw

    def _cut_to_fit(self, head: list[ChatMessage], raw: list[ChatMessage]) -> list[ChatMessage]:
        """``raw`` with its longest messages cut until the whole fits the hard limit."""
        raw = list(raw)
        for _ in range(2 * len(raw)):
            excess = sum(message_tokens(m) for m in head + raw) - self.budget.hard
            if excess <= 0:
                break
            longest = max(range(len(raw)), key=lambda i: len(raw[i].content))
            text = raw[longest].content
            keep = max(0, len(text) - (excess + estimate_tokens(CUT_NOTE) + 1) * CHARS_PER_TOKEN)
            raw[longest] = raw[longest].model_copy(
                update={"content": truncate(text, keep) + CUT_NOTE}
            )
        return raw

    def tail_start(self, keep: int | None = None) -> int:
        """Where the fresh tail begins: ``keep`` (default the budget's) messages from the
        end, moved back so no tool result is parted from the call that asked for it."""
        keep = self.budget.fresh_tail if keep is None else keep
        start = max(self.raw_from, len(self.store) - keep)
        while self.raw_from < start < len(self.store) and self.store[start].role == "tool":
            start -= 1
        return start

    def expand(self, summary_id: str, max_tokens: int = 2000) -> str:
        """The originals a summary covers (raw messages, or the summaries it condensed),
        cut to ``max_tokens``."""
        summary = self.summaries.get(summary_id)
        if summary is None:
            known = ", ".join(sorted(self.summaries)) or "none yet"
            return f"no summary {summary_id!r} (summaries: {known})"
        if summary.kind == "leaf":
            parts = [
                f"[M{m.id} {m.role}] {m.content}"
                for m in self.store.messages[summary.first : summary.last + 1]
            ]
        else:
            parts = [self.summaries[child].rendered() for child in summary.covers]
        return truncate("\n\n".join(parts), max_tokens * CHARS_PER_TOKEN)

    async def compact(self, summarise: Summariser) -> CompactionReport:
        """Bring the context under the soft limit if it can, and under the hard limit
        always (the last group cut as a last resort); ends in every case."""
        before = self.tokens()
        report = CompactionReport("not_needed", before, before)
        if before <= self.budget.soft:
            return report
        self.truncated_tail = False
        keep: int | None = None
        while self.tokens() > self.budget.soft:
            summary = await self._leaf(summarise, keep) or await self._condense(summarise)
            if summary is not None:
                report.summaries.append(summary.id)
                report.levels.append(summary.level)
                continue
            if self.tokens() <= self.budget.hard:
                report.reason = (
                    f"nothing left to compact: the fresh tail ({self._raw_tokens()} tokens) "
                    f"keeps the context over the soft limit ({self.budget.soft})"
                )
                break
            if keep != 0:
                keep = 1 if keep is None else 0
                continue
            self.truncated_tail = True
            report.reason = (
                "the newest messages alone are over the hard limit: they are cut in the "
                "prompt (the store keeps them whole)"
            )
            break
        report.after_tokens = self.tokens()
        if report.summaries:
            report.status = "compacted" if not report.reason else "exhausted"
        else:
            report.status = "exhausted"
        return report

    async def _leaf(self, summarise: Summariser, keep: int | None) -> Summary | None:
        """Summarise every raw message before the fresh tail, if that shrinks it."""
        end = self.tail_start(keep)
        span = self.raw(end)
        if not span:
            return None
        text = "\n\n".join(f"[M{m.id} {m.role}] {m.content}" for m in span)
        source = sum(m.tokens for m in span)
        summary = await self._write(
            "leaf", 1, [message_id(m.id) for m in span], span[0].id, span[-1].id, text,
            source, summarise,
        )  # fmt: skip
        if summary is None:
            return None
        self.raw_from = end
        self.top.append(summary.id)
        return summary

    async def _condense(self, summarise: Summariser) -> Summary | None:
        """Condense the oldest run of summaries in the context (same depth first; a lone
        summary is summarised again, smaller)."""
        if not self.top:
            return None
        run = self._oldest_run()
        children = [self.summaries[s] for s in run]
        text = "\n\n".join(child.rendered() for child in children)
        source = sum(child.tokens for child in children)
        depth = max(child.depth for child in children) + 1
        summary = await self._write(
            "condensed", depth, run, children[0].first, children[-1].last, text, source, summarise
        )
        if summary is None:
            return None
        at = self.top.index(run[0])
        self.top[at : at + len(run)] = [summary.id]
        return summary

    def _oldest_run(self) -> list[str]:
        for start in range(len(self.top) - 1):
            depth = self.summaries[self.top[start]].depth
            run = [self.top[start]]
            for later in self.top[start + 1 :]:
                if self.summaries[later].depth != depth or len(run) == FAN_IN:
                    break
                run.append(later)
            if len(run) >= 2:
                return run
        return self.top[:FAN_IN]

    async def _write(
        self,
        kind: str,
        depth: int,
        covers: list[str],
        first: int,
        last: int,
        text: str,
        source: int,
        summarise: Summariser,
    ) -> Summary | None:
        number = f"S{len(self.summaries) + 1:04d}"
        room = source - frame_tokens(summary_header(number, first, last))
        if room < 2:
            return None
        written = await write_summary(text, room, self.budget.summary_target, summarise)
        summary = Summary(
            id=number, kind=kind, depth=depth, covers=covers, first=first, last=last,
            text=written.text, level=written.level, source_tokens=source,
        )  # fmt: skip
        if not fits(summary):
            return None
        self.summaries[number] = summary
        return summary

    def _raw_tokens(self) -> int:
        return sum(m.tokens for m in self.raw())


def superseded_turns(messages: list[StoredMessage]) -> set[int]:
    """The ids of the messages of every unusable turn but the latest: from the assistant's
    turn to the message that closed it (what it was told), its tool results between."""
    closers = [m.id for m in messages if m.closes_unusable_turn]
    left_out: set[int] = set()
    for closer in closers[:-1]:
        start = closer
        while start > 0 and messages[start].role != "assistant":
            start -= 1
        if messages[start].role == "assistant":
            left_out.update(range(start, closer + 1))
    return left_out
