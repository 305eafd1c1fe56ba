"""An evidence quote in its place: the surrounding document text with the quote highlighted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ralph_tui.documents import Corpus
from ralph_tui.tui.core.evidence import QuoteInPlace, locate, source_label
from ralph_tui.validate.evidence import EvidenceMinimum, check_quote_anywhere


def quote_in_place_content(place: QuoteInPlace) -> Content:
    return Content.assemble(
        ("… " if place.clipped_start else "", "$text-muted"),
        (place.before, "$text-muted"),
        (place.quote, "bold $text on $accent-muted"),
        (place.after, "$text-muted"),
        (" …" if place.clipped_end else "", "$text-muted"),
    )


class InPlaceModal(ModalScreen[None]):
    """A passage of the document in its place: a line saying where, above the text.
    Subclasses say where (``where``) and give the text (``body``)."""

    DEFAULT_CSS = """
    InPlaceModal { align: center middle; }
    InPlaceModal > Vertical {
        width: 90%; height: 85%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    InPlaceModal .where { color: $text-muted; }
    InPlaceModal VerticalScroll { height: 1fr; }
    """

    WHERE_ID = "where"
    TEXT_ID = "text"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.where(), id=self.WHERE_ID, classes="where", markup=False)
            with VerticalScroll():
                yield Static(self.body(), id=self.TEXT_ID)

    def where(self) -> str:
        raise NotImplementedError

    def body(self) -> Content:
        raise NotImplementedError

    def action_close(self) -> None:
        self.dismiss(None)


class EvidenceModal(InPlaceModal):
    """Where ``quote`` sits in ``document`` (or why it cannot be shown)."""

    WHERE_ID = "evidence-where"
    TEXT_ID = "evidence-text"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="evidence.close"),
        Binding(
            "y",
            "copy_quote",
            "Copy quote",
            id="evidence.copy",
            tooltip="Copy this quote to the clipboard",
        ),
    ]

    def __init__(
        self,
        quote: str,
        document: str | None,
        doc_name: str,
        minimum: EvidenceMinimum | None = None,
        corpus: Corpus | None = None,
        external: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.quote = quote
        minimum = minimum or EvidenceMinimum()
        check = check_quote_anywhere(quote, document or "", external, minimum)
        if check.url is not None and external:
            # Found in an external page: shown within that page's cached text.
            self.place = locate(check, external[check.url])
        else:
            # In a corpus, the passage is shown within its own file and page.
            bounds = corpus.passage_bounds(check.span[0]) if corpus and check.span else None
            self.place = locate(check, document, bounds=bounds) if document is not None else None
        self.problem = check.describe(minimum)
        self.document_missing = document is None
        self.doc_name = source_label(check, corpus) or doc_name

    def where(self) -> str:
        if self.place is not None:
            return f"{self.doc_name}, line {self.place.line} — verified: the quote is verbatim"
        return f"{self.doc_name} — not verified"

    def body(self) -> Content:
        if self.place is not None:
            return quote_in_place_content(self.place)
        reason = (
            "The document could not be read, so the quote cannot be checked."
            if self.document_missing
            else f"This quote {self.problem}."
        )
        return Content.assemble((reason, "bold $text-error"), "\n\n", (self.quote, "italic"))

    def action_copy_quote(self) -> None:
        self.app.copy_to_clipboard(self.quote)
        self.notify("Quote copied to the clipboard.")
