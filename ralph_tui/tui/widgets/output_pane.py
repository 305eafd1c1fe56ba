"""The current candidate. In QA mode each answer line shows the judge's verdict and the
numbers of the quotes that back it, each evidence quote (numbered) is marked verified (a
verbatim substring of the document) or not, and selecting one shows it in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ralph_tui.tui.claims import answer_content
from ralph_tui.tui.context import evidence_minimum
from ralph_tui.tui.core.partial_turn import answer_forming

if TYPE_CHECKING:
    from ralph_tui.documents import Corpus
    from ralph_tui.events import ModelTurnPartial
    from ralph_tui.evidence import Claim, QuoteLocation
    from ralph_tui.tui.core.evidence import Quote
    from ralph_tui.validate.evidence import EvidenceMinimum

MARKS = {
    True: ("✓ ", "bold $text-success"),
    False: ("✗ ", "bold $text-error"),
    None: ("? ", "bold $text-warning"),
}


def candidate_text(
    output: dict[str, Any] | None, *, salvaged: bool = False, claims: list[Claim] | None = None
) -> Content:
    """Every field of the candidate except the evidence list, under its name; a salvage says
    so first. An answer whose lines name their quotes shows them as claims (``claims``, when
    judged; else as the candidate linked them)."""
    if not output:
        return Content.styled("No candidate yet.", "$text-muted")
    from ralph_tui.events import SALVAGE_NOTE
    from ralph_tui.validate.claims import LINE_QUOTES, claims_of

    blocks = [Content.styled(f"⚠ {SALVAGE_NOTE}", "bold $text-warning")] if salvaged else []
    for name, value in output.items():
        if name in ("evidence", LINE_QUOTES):
            continue
        if name == "answer" and (claims or LINE_QUOTES in output):
            body: Content | str = answer_content(claims or claims_of(output))
        elif isinstance(value, list):
            body = "\n".join(f"- {v}" for v in value)
        else:
            body = str(value)
        blocks.append(Content.assemble((name, "bold underline"), "\n", body))
    return Content("\n\n").join(blocks)


def quote_option(quote: Quote, number: int) -> Option:
    where = (f"  [{quote.source}]", "$text-muted") if quote.source else ""
    return Option(
        Content.assemble((f"{number:>2} ", "bold"), MARKS[quote.verified], quote.one_line, where)
    )


class OutputPane(Vertical):
    """The candidate's text (scrolling) above its evidence quotes (when it has any)."""

    DEFAULT_CSS = """
    OutputPane > #candidate { height: 1fr; }
    OutputPane #forming {
        color: $text-muted;
        border-left: outer $accent 60%;
        padding-left: 1;
        margin-bottom: 1;
        display: none;
    }
    OutputPane.-forming #forming { display: block; }
    OutputPane > #evidence-title { text-style: bold underline; display: none; }
    OutputPane > #evidence {
        height: auto; max-height: 50%; border: none; padding: 0; display: none;
    }
    OutputPane.-has-evidence > #evidence-title { display: block; }
    OutputPane.-has-evidence > #evidence { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "c",
            "copy_output",
            "Copy output",
            id="output.copy",
            tooltip="Copy the current output to the clipboard",
        ),
        Binding(
            "y",
            "copy_quote",
            "Copy quote",
            id="output.copy_quote",
            tooltip="Copy the highlighted evidence quote",
        ),
    ]

    class QuoteChosen(Message):
        """The user asked to see ``quote`` in its place in the document."""

        def __init__(self, quote: str) -> None:
            super().__init__()
            self.quote = quote

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.output: dict[str, Any] | None = None
        self.claims: list[Claim] = []
        self.document: str | None = None
        self.corpus: Corpus | None = None
        self.external: dict[str, str] = {}
        """The run's external pages' cached text, by URL (quotes may cite them)."""
        self.quotes: list[Quote] = []
        self.locations: list[QuoteLocation] | None = None
        """Where the candidate's quotes stand, as the run located them (else located here)."""

    @property
    def minimum(self) -> EvidenceMinimum:
        """What a quote must hold to count, as the app's settings say."""
        return evidence_minimum(self.app)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="candidate"):
            yield Static("", id="forming")
            yield Static(candidate_text(None), id="candidate-text")
        yield Static("Evidence  (enter: show in document, y: copy)", id="evidence-title")
        yield OptionList(id="evidence")

    def show(
        self,
        output: dict[str, Any] | None,
        *,
        salvaged: bool = False,
        quotes: list[QuoteLocation] | None = None,
        claims: list[Claim] | None = None,
    ) -> None:
        """Display ``output`` (a candidate) with its ``claims`` (its lines, their quotes and
        verdicts) and check its evidence against the document; ``quotes`` say where its
        quotes stand, when the run located them."""
        self.output, self.locations, self.claims = output, quotes, list(claims or [])
        self.query_one("#candidate-text", Static).update(
            candidate_text(output, salvaged=salvaged, claims=self.claims)
        )
        self._show_quotes()

    def show_forming(self, turn: ModelTurnPartial | None) -> None:
        """Show the answer ``turn`` is writing above the candidate (hidden for ``None``, or
        a turn writing code, which the Sandbox pane shows)."""
        text = answer_forming(turn) if turn is not None else None
        if turn is None or text is None:
            self.remove_class("-forming")
            return
        header = (f"{turn.agent} step {turn.step} writing…", "bold")
        self.query_one("#forming", Static).update(Content.assemble(header, "\n", text))
        self.add_class("-forming")

    def set_document(self, document: str | None, corpus: Corpus | None = None) -> None:
        """The document the quotes are checked against (``None`` if it cannot be read), and
        the corpus it joins (to say which file and page each quote is from)."""
        self.document, self.corpus = document, corpus
        self._show_quotes()

    def set_external(self, pages: dict[str, str]) -> None:
        """The external pages' text, by URL, that quotes may also be found in."""
        self.external = pages
        self._show_quotes()

    def _show_quotes(self) -> None:
        if self.output is None:
            self.quotes = []
            self.query_one("#evidence", OptionList).clear_options()
            return
        from ralph_tui.tui.core.evidence import check_quotes, evidence_of

        self.quotes = check_quotes(
            evidence_of(self.output),
            self.document,
            self.minimum,
            self.corpus,
            self.external,
            self.locations,
        )
        options = self.query_one("#evidence", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options([quote_option(quote, n) for n, quote in enumerate(self.quotes, 1)])
        if self.quotes:
            options.highlighted = min(highlighted or 0, len(self.quotes) - 1)
        self.set_class(bool(self.quotes), "-has-evidence")

    def selected_quote(self) -> str | None:
        index = self.query_one("#evidence", OptionList).highlighted
        if index is None or index >= len(self.quotes):
            return None
        return self.quotes[index].text

    def output_as_text(self) -> str:
        """The whole candidate as plain text, evidence included, for the clipboard."""
        text = candidate_text(self.output, claims=self.claims).plain if self.output else ""
        quotes = "\n".join(f"{n}. {quote.text}" for n, quote in enumerate(self.quotes, 1))
        return f"{text}\n\nevidence\n{quotes}" if quotes else text

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.quotes):
            self.post_message(self.QuoteChosen(self.quotes[event.option_index].text))

    def action_copy_output(self) -> None:
        if self.output is None:
            self.notify("There is no output to copy yet.", severity="warning")
            return
        self.app.copy_to_clipboard(self.output_as_text())
        self.notify("Output copied to the clipboard.")

    def action_copy_quote(self) -> None:
        quote = self.selected_quote()
        if quote is None:
            self.notify("Highlight an evidence quote first.", severity="warning")
            return
        self.app.copy_to_clipboard(quote)
        self.notify("Quote copied to the clipboard.")
