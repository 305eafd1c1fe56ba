"""What one iteration read of the documents.

The exploring agent reports what it looked at as ``TextRead`` events (a sandbox cell's
slices, ``grep`` hits, ``read`` windows, ``llm_map`` spans) and retrieval hands it passages;
all are spans of the run's joined text. The tracker merges them, turns them into spans of
each document's own text (``Coverage``), and reports ``CoverageUpdated`` while it grows, at
most once per ``interval_s``, and once more when the generate phase ends.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.documents import Corpus
from ralph_tui.events import BaseEvent, CoverageUpdated, Emit, TextRead
from ralph_tui.evidence import Coverage, DocumentCoverage, SectionKind, Span, merge_spans

UPDATE_INTERVAL_S = 0.5
HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
ESCAPES_AND_CLASSES = re.compile(r"\\.|\[(?:\\.|[^\]])*\]|\(\?[a-zA-Z]+\)")
WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class DocumentPlace:
    """Where one document's text stands in the joined text, and its pages or sections."""

    name: str
    start: int
    end: int
    sections: list[Span] = field(default_factory=list)
    section_kind: SectionKind | None = None


def document_places(corpus: Corpus | None, text: str, name: str) -> list[DocumentPlace]:
    """The documents of a run's joined ``text`` (one named ``name`` without a corpus)."""
    if corpus is None:
        return [DocumentPlace(name, 0, len(text), *_sections(text, None))]
    places = []
    for entry, document in zip(corpus.table, corpus.documents, strict=True):
        pages = [(p["start"] - entry["start"], p["end"] - entry["start"]) for p in entry["pages"]]
        sections, kind = _sections(document.text, pages)
        places.append(DocumentPlace(entry["name"], entry["start"], entry["end"], sections, kind))
    return places


def _sections(text: str, pages: list[Span] | None) -> tuple[list[Span], SectionKind | None]:
    """PDF pages, or else the parts under Markdown headings (when there are two or more)."""
    if pages:
        return pages, "page"
    starts = [match.start() for match in HEADING.finditer(text)]
    if len(starts) < 2:
        return [], None
    if starts[0] > 0 and text[: starts[0]].strip():
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(text)], strict=True)), "section"


def is_search_term(pattern: str) -> bool:
    """Whether a search names words (``saffron``, ``simm(er|ering)``) rather than only
    structure (``\\n\\n``, ``\\w+``): only those tell a person what was looked for."""
    return WORD.search(ESCAPES_AND_CLASSES.sub(" ", pattern)) is not None


def coverage_of(places: list[DocumentPlace], spans: list[Span], searches: list[str]) -> Coverage:
    """``spans`` of the joined text as merged spans of each document's own text."""
    merged = merge_spans(spans)
    documents = []
    for place in places:
        own = [
            (max(start, place.start) - place.start, min(end, place.end) - place.start)
            for start, end in merged
            if start < place.end and end > place.start
        ]
        documents.append(
            DocumentCoverage(
                document=place.name,
                chars=place.end - place.start,
                spans=merge_spans(own),
                sections=place.sections,
                section_kind=place.section_kind,
            )
        )
    return Coverage(documents=documents, searches=searches)


class CoverageTracker:
    """The reads of one iteration, folded as they come (see the module's docs)."""

    def __init__(
        self,
        iteration: int,
        places: list[DocumentPlace],
        emit: Emit,
        interval_s: float = UPDATE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.iteration = iteration
        self.places = places
        self.emit = emit
        self.interval_s = interval_s
        self.clock = clock
        self.spans: list[Span] = []
        self.searches: dict[str, None] = {}
        self._changed = False
        self._last_sent: float | None = None

    def observe(self, event: BaseEvent) -> None:
        """An ``Emit`` for the exploring agent: its reads are folded in, the rest passes on."""
        if isinstance(event, TextRead):
            self.add(event.spans, event.searches)
        else:
            self.emit(event)

    def add(self, spans: Iterable[Span], searches: Iterable[str] = ()) -> None:
        """Spans of the joined text read, and what was searched for across it."""
        before = self.spans, len(self.searches)
        self.spans = merge_spans([*self.spans, *spans])
        for search in searches:
            if is_search_term(search):
                self.searches.setdefault(search.strip(), None)
        self._changed |= before != (self.spans, len(self.searches))
        now = self.clock()
        if self._changed and (self._last_sent is None or now - self._last_sent >= self.interval_s):
            self._send(now)

    def add_retrieved(self, query: str, passages: Iterable[dict[str, Any]]) -> None:
        """The document passages a search handed the agent, and its query."""
        spans = [
            (int(p["span"][0]), int(p["span"][1]))
            for p in passages
            if p.get("source") == "doc" and p.get("span")
        ]
        self.add(spans, [query])

    def coverage(self) -> Coverage:
        return coverage_of(self.places, self.spans, list(self.searches))

    def finish(self) -> Coverage:
        """The generate phase is over: report the coverage once more, and return it."""
        self._send(self.clock())
        return self.coverage()

    def _send(self, now: float) -> None:
        self._changed, self._last_sent = False, now
        self.emit(CoverageUpdated(iteration=self.iteration, coverage=self.coverage()))
