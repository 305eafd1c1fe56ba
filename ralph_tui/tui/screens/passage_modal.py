"""A retrieved passage in its place: a document passage highlighted in the surrounding text
(within its own file and page), an episode or external page as its text, with its scores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from ralph_tui.documents import Corpus
from ralph_tui.events import RetrievedPassage
from ralph_tui.evidence import page_label
from ralph_tui.tui.core.evidence import QuoteInPlace, place_of_span
from ralph_tui.tui.screens.evidence_modal import InPlaceModal, quote_in_place_content
from ralph_tui.tui.widgets.retrieval_pane import scores_text


def passage_place(
    passage: RetrievedPassage,
    document: str | None,
    corpus: Corpus | None,
    external: Mapping[str, str] | None = None,
) -> QuoteInPlace | None:
    """Where a passage sits in ``document`` (or, from an external page, in that page's
    cached text), or ``None`` when it cannot be shown (an episode, no span, or the text
    changed since it was indexed)."""
    if passage.source == "external" and passage.url and external and passage.url in external:
        document, corpus = external[passage.url], None
    elif passage.source != "doc":
        return None
    if passage.span is None or document is None:
        return None
    start, end = passage.span
    if not 0 <= start < end <= len(document):
        return None
    if not document[start:end].startswith(passage.text[:200]):
        return None
    bounds = corpus.passage_bounds(start) if corpus else None
    return place_of_span(document, (start, end), bounds=bounds)


class PassageModal(InPlaceModal):
    """``passage`` in its place in ``document`` (or its own text, saying why)."""

    WHERE_ID = "passage-where"
    TEXT_ID = "passage-text"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="passage.close"),
        Binding("y", "copy_passage", "Copy passage", id="passage.copy"),
    ]

    def __init__(
        self,
        passage: RetrievedPassage,
        document: str | None,
        corpus: Corpus | None = None,
        external: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.passage = passage
        self.place = passage_place(passage, document, corpus, external)
        self.document_missing = document is None

    def where(self) -> str:
        p = self.passage
        parts = [p.label]
        if p.document:
            parts.append(" ".join(filter(None, (p.document, page_label(p.page, p.pages)))))
        if p.url:
            parts.append(p.url)
        if self.place is not None:
            parts.append(f"line {self.place.line}")
        return " — ".join([*parts, scores_text(p)])

    def body(self) -> Content:
        if self.place is not None:
            return quote_in_place_content(self.place)
        if self.passage.source == "doc":
            reason = (
                "The document could not be read, so the passage is shown alone."
                if self.document_missing
                else "The document has changed since it was indexed: the passage as retrieved."
            )
            return Content.assemble((reason, "$text-warning"), "\n\n", self.passage.text)
        return Content(self.passage.text)

    def action_copy_passage(self) -> None:
        place = self.place
        self.app.copy_to_clipboard(place.quote if place is not None else self.passage.text)
        self.notify("Passage copied to the clipboard.")
