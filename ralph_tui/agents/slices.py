"""What a child agent explores: the part of its parent's text that ``rlm_query`` hands it.

The parent's code gives either a string (a slice of text) or some of the documents by name
(or their rows of the ``documents`` table). A child's ``context`` is then that string, or
those documents joined as the run joins them, with a ``documents`` table of its own whose
spans point into its ``context``. ``Slice`` keeps where each part of the child's text stands
in the parent's, so what the child reads is counted in the parent's coverage and what its
``retrieve()`` finds is narrowed to its documents and placed in its own text.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ralph_tui.counts import counted
from ralph_tui.documents.corpus import DOCUMENT_SEPARATOR
from ralph_tui.evidence import Span

MAX_NAMED_DOCUMENTS = 1000
"""Documents one ``rlm_query`` may name (a bound on the work a call asks of the host)."""
NAMES_SHOWN = 8
RETRIEVE_WIDEN = 4
"""How many more passages a child's ``retrieve()`` asks of the run's index than it was asked
for, since those outside its documents are dropped."""
RETRIEVE_MAX_K = 50

Retrieve = Callable[..., Awaitable[object]]


class SliceRefused(ValueError):
    """The ``context`` given to ``rlm_query`` names no part of the parent's text."""


@dataclass(frozen=True)
class Piece:
    """A run of the child's text that is the parent's text from ``parent_start`` on."""

    start: int
    end: int
    parent_start: int

    def to_parent(self, span: Span) -> Span | None:
        start, end = max(span[0], self.start), min(span[1], self.end)
        if start >= end:
            return None
        shift = self.parent_start - self.start
        return (start + shift, end + shift)

    def from_parent(self, span: Span) -> Span | None:
        shift = self.parent_start - self.start
        start, end = max(span[0] - shift, self.start), min(span[1] - shift, self.end)
        return (start, end) if start < end else None


@dataclass(frozen=True)
class Slice:
    """A child's ``context`` (``text``), its ``documents`` table when it was given documents
    (``None`` for a string), and where its parts stand in the parent's text."""

    text: str
    table: list[dict[str, Any]] | None
    pieces: tuple[Piece, ...]
    described: str
    """What the child was given, for a person: ``2 documents: a.md, b.md``."""

    def to_parent(self, spans: Sequence[Span]) -> list[Span]:
        """``spans`` of the child's text as spans of the parent's (parts that stand
        nowhere in it, such as the headers between documents, left out)."""
        placed = (piece.to_parent(span) for span in spans for piece in self.pieces)
        return [span for span in placed if span is not None]

    def retrieve(self, parent: Retrieve) -> Retrieve:
        """The child's ``retrieve()``: the parent's, narrowed to the child's documents, each
        passage's ``span`` placed in the child's text."""

        async def retrieve(
            query: str, k: int = 5, sources: list[str] | str | None = None
        ) -> list[dict[str, Any]]:
            wanted = max(1, min(int(k), RETRIEVE_MAX_K))
            found = await parent(query, k=min(wanted * RETRIEVE_WIDEN, RETRIEVE_MAX_K))
            passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
            kept = [p for p in (self._placed(passage) for passage in passages) if p is not None]
            if sources is not None:
                kinds = {sources} if isinstance(sources, str) else set(sources)
                kept = [passage for passage in kept if passage.get("source") in kinds]
            return kept[:wanted]

        return retrieve

    def _placed(self, passage: dict[str, Any]) -> dict[str, Any] | None:
        span = passage.get("span")
        if passage.get("source") != "doc" or not isinstance(span, list) or len(span) != 2:
            return None
        for piece in self.pieces:
            placed = piece.from_parent((int(span[0]), int(span[1])))
            if placed is not None:
                return {**passage, "span": list(placed)}
        return None


def slice_of(context: object, parent_text: str, parent_table: object) -> Slice:
    """The part of the parent's text ``context`` names: ``None`` (all of it), a string (that
    text), or a list of document names or ``documents`` rows; ``SliceRefused`` saying what
    is wrong otherwise."""
    if context is None:
        whole = Piece(0, len(parent_text), 0)
        table = copy.deepcopy(parent_table) if isinstance(parent_table, list) else None
        return Slice(parent_text, table, (whole,), "the whole of its parent's context")
    if isinstance(context, str):
        at = parent_text.find(context) if context else -1
        pieces = (Piece(0, len(context), at),) if at >= 0 else ()
        return Slice(context, None, pieces, f"a text of {len(context):,} characters")
    if isinstance(context, list | tuple):
        return _documents_slice(list(context), parent_text, parent_table)
    raise SliceRefused(
        f"context must be a string, a list of document names, or None, not {type(context).__name__}"
    )


def _documents_slice(named: list[object], parent_text: str, parent_table: object) -> Slice:
    if not isinstance(parent_table, list):
        raise SliceRefused("there is no `documents` table here: pass the text as a string")
    if not named or len(named) > MAX_NAMED_DOCUMENTS:
        raise SliceRefused(f"name 1 to {MAX_NAMED_DOCUMENTS} documents")
    rows = {row["name"]: row for row in parent_table if isinstance(row, dict)}
    names = [
        _resolved(item.get("name") if isinstance(item, dict) else item, rows) for item in named
    ]
    unknown = [str(name)[:80] for name in names if not isinstance(name, str) or name not in rows]
    if unknown:
        known = ", ".join(list(rows)[:NAMES_SHOWN]) + (", ..." if len(rows) > NAMES_SHOWN else "")
        raise SliceRefused(f"no document named {unknown[0]!r} (the documents are: {known})")
    chosen = [rows[str(name)] for name in dict.fromkeys(names)]
    parts: list[str] = []
    table: list[dict[str, Any]] = []
    pieces: list[Piece] = []
    offset = 0
    for row in chosen:
        if parts:
            parts.append(DOCUMENT_SEPARATOR)
            offset += len(DOCUMENT_SEPARATOR)
        header = f"===== {row['name']} =====\n\n" if len(chosen) > 1 else ""
        text = parent_text[row["start"] : row["end"]]
        parts.append(header + text)
        start = offset + len(header)
        pieces.append(Piece(start, start + len(text), row["start"]))
        table.append(_moved(row, start - row["start"]))
        offset = start + len(text)
    shown = ", ".join(row["name"] for row in chosen[:NAMES_SHOWN])
    more = ", ..." if len(chosen) > NAMES_SHOWN else ""
    described = f"{counted(len(chosen), 'document')}: {shown}{more}"
    return Slice("".join(parts), table, tuple(pieces), described)


def _resolved(name: object, rows: dict[str, Any]) -> object:
    """A document's name in the table: ``name`` itself, or the one name that ends with it
    after a slash (``b.md`` for ``plants/b.md``, as a folder's files are named)."""
    if not isinstance(name, str) or name in rows:
        return name
    ending = [known for known in rows if known.endswith("/" + name)]
    return ending[0] if len(ending) == 1 else name


def _moved(row: dict[str, Any], shift: int) -> dict[str, Any]:
    """A ``documents`` row with its spans moved by ``shift``."""
    moved = copy.deepcopy(row)
    moved["start"] += shift
    moved["end"] += shift
    for page in moved.get("pages") or []:
        page["start"] += shift
        page["end"] += shift
    for heading in moved.get("headings") or []:
        heading["start"] += shift
    return moved
