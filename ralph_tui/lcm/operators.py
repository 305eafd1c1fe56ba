"""The context operators: ``expand`` (the originals a summary covers), ``grep`` (a regular
expression over the conversation's messages, its summaries, or the document) and, for the
LCM agent that has no sandbox to slice the document in, ``read`` (a bounded span of it);
each bounded, each call an event."""

from __future__ import annotations

import re
import time
from typing import Any

from ralph_tui.events import Emit, OperatorCalled, ReadVia, TextRead
from ralph_tui.evidence import Span
from ralph_tui.lcm.context import ActiveContext

EXPAND_DOC = (
    "`expand(summary_id, max_tokens=2000) -> str`: the messages (or summaries) a summary of "
    "your earlier conversation covers, e.g. `expand('S0001')`; summaries appear as "
    "`[S0001: messages 3-9, expand('S0001')]`."
)
GREP_DOC = (
    "`grep(pattern, scope='document', limit=20, offset=0) -> dict`: a regular expression "
    "over `scope` ('document', 'messages' of this conversation — your code included — or "
    "'summaries'); returns "
    "`hits` (each with `span` into `context` for the document, or the message or summary "
    "`id`, and the matching line) and `next_offset` (None at the end)."
)
READ_DOC = (
    "`read(start, end)`: the document's characters [start, end), at most {limit:,} per call "
    "(a longer span is cut, saying where to go on); the text comes after a header line "
    "`[context START-END of N characters]`."
)
SNIPPET_CHARS = 200
MAX_LIMIT = 100
SCOPES = ("document", "messages", "summaries")


class Operators:
    """``expand`` and ``grep`` over one agent's context and its document; each call is an
    ``OperatorCalled`` event."""

    def __init__(
        self,
        context: ActiveContext,
        document: str,
        emit: Emit | None = None,
        agent: str = "",
        read_limit: int = 4000,
    ) -> None:
        self.context = context
        self.document = document
        self.emit: Emit = emit if emit is not None else (lambda _e: None)
        self.agent = agent
        self.read_limit = read_limit

    async def read(self, start: int, end: int) -> str:
        """``document[start:end]`` after a header saying where it is; a span longer than
        ``read_limit`` is cut, saying where to go on."""
        started = time.perf_counter()
        size = len(self.document)
        start, end = max(0, min(int(start), size)), max(0, min(int(end), size))
        if end <= start:
            raise ValueError(f"an empty span: give 0 <= start < end <= {size:,}")
        stop = min(end, start + self.read_limit)
        text = f"[context {start}-{stop} of {size:,} characters]\n{self.document[start:stop]}"
        if stop < end:
            text += f"\n[cut at {stop}: read({stop}, {end}) for the rest]"
        self._report("read", f"{start}-{stop}: {stop - start:,} characters", started)
        self._read("read", [(start, stop)])
        return text

    async def expand(self, summary_id: str, max_tokens: int = 2000) -> str:
        started = time.perf_counter()
        text = self.context.expand(str(summary_id), max(1, int(max_tokens)))
        self._report("expand", f"{summary_id}: {len(text):,} characters", started)
        return text

    def _read(self, via: ReadVia, spans: list[Span], searches: list[str] | None = None) -> None:
        """Report the spans of the document shown to the agent (and what it searched for)."""
        self.emit(TextRead(agent=self.agent, via=via, spans=spans, searches=searches or []))

    def _report(self, operator: str, detail: str, started: float) -> None:
        self.emit(
            OperatorCalled(
                agent=self.agent,
                operator=operator,
                detail=detail,
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        )

    async def grep(
        self, pattern: str, scope: str = "document", limit: int = 20, offset: int = 0
    ) -> dict[str, Any]:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        try:
            regex = re.compile(str(pattern))
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        started = time.perf_counter()
        limit = max(1, min(int(limit), MAX_LIMIT))
        offset = max(0, int(offset))
        hits: list[dict[str, Any]] = []
        next_offset: int | None = None
        for number, hit in enumerate(self._hits(regex, scope)):
            if number < offset:
                continue
            if len(hits) == limit:
                next_offset = offset + limit
                break
            hits.append(hit)
        self._report("grep", f"{pattern!r} in {scope}: {len(hits)} hits", started)
        if scope == "document":
            lines = [_line_span(self.document, *hit["span"]) for hit in hits]
            self._read("grep", lines, [str(pattern)])
        return {"hits": hits, "next_offset": next_offset}

    def _hits(self, regex: re.Pattern[str], scope: str) -> Any:
        if scope == "document":
            for match in regex.finditer(self.document):
                yield {"span": [match.start(), match.end()], "line": _line(self.document, match)}
        elif scope == "messages":
            for message in self.context.store.messages:
                text = "\n".join([message.content, *(c.arguments for c in message.tool_calls)])
                for match in regex.finditer(text):
                    yield {"id": f"M{message.id}", "role": message.role, "line": _line(text, match)}
        else:
            for summary in self.context.summaries.values():
                for match in regex.finditer(summary.text):
                    yield {"id": summary.id, "line": _line(summary.text, match)}


def _line(text: str, match: re.Match[str]) -> str:
    """The line holding ``match``, cut around it to ``SNIPPET_CHARS``."""
    start, end = _line_span(text, match.start(), match.end())
    return text[start:end]


def _line_span(text: str, match_start: int, match_end: int) -> Span:
    """Where the line holding a match stands, cut around it to ``SNIPPET_CHARS``."""
    start = text.rfind("\n", 0, match_start) + 1
    end = text.find("\n", match_end)
    end = len(text) if end < 0 else end
    if end - start > SNIPPET_CHARS:
        start = max(start, match_start - SNIPPET_CHARS // 2)
        end = min(end, start + SNIPPET_CHARS)
    return start, end
