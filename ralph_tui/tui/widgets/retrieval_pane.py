"""The retrieval of the current iteration: how far the index is, then each search (the
reader's pre-phase, the sandbox's ``retrieve()`` calls) with its ranked passages, where
each comes from and its scores; selecting a passage shows it in its place."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ralph_tui.counts import counted
from ralph_tui.evidence import page_label
from ralph_tui.thesaurus import also_searched
from ralph_tui.tui.core.formatting import millis
from ralph_tui.tui.core.run_progress import RunProgress

if TYPE_CHECKING:
    from ralph_tui.events import ExternalProgress, IndexProgress, RetrievalDone, RetrievedPassage

NO_SEARCH = "No search yet: the reader's pre-phase and the sandbox's retrieve() search here."
PREVIEW_CHARS = 120
ORIGINS = {"prephase": "before the reader", "sandbox": "retrieve() in the sandbox"}


def index_line(index: IndexProgress | None) -> Content:
    """The index's state: a stage in progress, or its figures once ready."""
    if index is None:
        return Content.styled("Index: not opened yet", "$text-muted")
    if index.stage != "ready":
        return Content.assemble(
            ("Index: ", "bold"), f"building {index.stage} {index.done:,}/{index.total:,}"
        )
    figures: dict[str, Any] = dict(index.figures or {})
    cached = figures.get("lexicalFromCache") and figures.get("vectorsFromCache") is not False
    dense = (
        f"dense skipped ({figures['denseSkipped']})"
        if figures.get("denseSkipped")
        else f"{figures.get('embedder')} ({figures.get('dim')} dims)"
    )
    total_ms = float((figures.get("ms") or {}).get("total", 0.0))
    return Content.assemble(
        ("Index: ", "bold"),
        f"{int(figures.get('chunks', 0)):,} chunks, {int(figures.get('words', 0)):,} words · "
        f"{dense} · {'from the cache' if cached else 'built'} in {millis(total_ms)}",
    )


def external_line(crawls: Iterable[ExternalProgress]) -> Content:
    """Each external documentation source's crawl: pages kept, fetched, cached, left out."""
    parts = []
    for crawl in crawls:
        state = "" if crawl.done else f", {crawl.queued} queued"
        parts.append(
            f"{crawl.source}: {counted(crawl.kept, 'page')} kept ({crawl.fetched} fetched, "
            f"{crawl.from_cache} cached{state}), {crawl.failed} failed, "
            f"{crawl.skipped} skipped"
        )
    if not parts:
        return Content("")
    return Content.assemble(("External: ", "bold"), "\n  ".join(parts))


def scores_text(passage: RetrievedPassage) -> str:
    """``lexical #1 · dense #4 · maxsim 0.41``: each leg's rank, then the reranker's score."""
    parts = [f"{leg} #{rank}" for leg, rank in passage.ranks.items() if leg != "final"]
    if "maxsim" in passage.scores:
        parts.append(f"maxsim {passage.scores['maxsim']:.2f}")
    return " · ".join(parts)


def passage_option(number: int, passage: RetrievedPassage) -> Option:
    where = " ".join(
        part for part in (passage.document or "", page_label(passage.page, passage.pages)) if part
    )
    text = " ".join(passage.text.split())
    preview = text[:PREVIEW_CHARS] + ("…" if len(text) > PREVIEW_CHARS else "")
    return Option(
        Content.assemble(
            (f"{number:>2}. ", "bold"),
            (passage.label, "$text-primary"),
            (f"  {where}" if where else "", "$text-muted"),
            (f"  {scores_text(passage)}", "$text-secondary"),
            "\n    ",
            (preview, "$text-muted"),
        )
    )


def search_heading(search: RetrievalDone) -> Option:
    took = search.diagnostics.get("ms")
    total = took.get("total") if isinstance(took, dict) else None
    skipped = search.diagnostics.get("skipped")
    notes = [millis(float(total))] if isinstance(total, (int, float)) else []
    if isinstance(skipped, dict):
        notes.extend(f"{stage} skipped" for stage in skipped)
    if also := also_searched(search.diagnostics.get("readerTerms")):
        notes.append(f"also searched for {also}")
    return Option(
        Content.assemble(
            ("⌕ ", "bold $accent"),
            (f"“{search.query}”", "bold"),
            (f"  {ORIGINS.get(search.origin, search.origin)}", "$text-muted"),
            (f"  ({', '.join(notes)})" if notes else "", "$text-muted"),
            (
                f"  {counted(len(search.passages), 'passage')}"
                if search.passages
                else "  no match",
                "",
            ),
        ),
        disabled=True,
    )


def shown_iteration(progress: RunProgress) -> int | None:
    """The current iteration if it searched, else the latest one that did."""
    if progress.iteration in progress.searches:
        return progress.iteration
    return max(progress.searches, default=None)


class RetrievalPane(Vertical):
    """``index_line`` above the shown iteration's searches and passages."""

    DEFAULT_CSS = """
    RetrievalPane > #retrieval-index { height: auto; padding: 0 1; }
    RetrievalPane > #retrieval-external { height: auto; padding: 0 1; }
    RetrievalPane > #retrieval-heading { height: auto; padding: 0 1; color: $text-muted; }
    RetrievalPane > #retrieval-results { height: 1fr; border: none; padding: 0; }
    """

    class PassageChosen(Message):
        """The user asked to see ``passage`` in its place."""

        def __init__(self, passage: RetrievedPassage) -> None:
            super().__init__()
            self.passage = passage

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.passages: dict[int, RetrievedPassage] = {}
        """Each passage option's index in the list."""

    def compose(self) -> ComposeResult:
        yield Static(index_line(None), id="retrieval-index")
        yield Static("", id="retrieval-external")
        yield Static(NO_SEARCH, id="retrieval-heading", markup=False)
        yield OptionList(id="retrieval-results")

    def show(self, progress: RunProgress, iteration: int | None = None) -> None:
        """The index, the crawls, and the searches of ``iteration`` (by default the current
        one if it searched, else the latest that did)."""
        self.query_one("#retrieval-index", Static).update(index_line(progress.index))
        external = self.query_one("#retrieval-external", Static)
        external.update(external_line(progress.external.values()))
        external.display = bool(progress.external)
        if iteration is None:
            iteration = shown_iteration(progress)
        searches = progress.searches.get(iteration, []) if iteration is not None else []
        heading = (
            f"Iteration {iteration}: {len(searches)} search(es)  (enter: show in place)"
            if iteration is not None
            else NO_SEARCH
        )
        self.query_one("#retrieval-heading", Static).update(heading)
        self._list(searches)

    def reset(self) -> None:
        self.show(RunProgress())

    def _list(self, searches: Iterable[RetrievalDone]) -> None:
        options = self.query_one("#retrieval-results", OptionList)
        highlighted = options.highlighted
        entries: list[Option] = []
        self.passages = {}
        for search in searches:
            entries.append(search_heading(search))
            for number, passage in enumerate(search.passages, 1):
                self.passages[len(entries)] = passage
                entries.append(passage_option(number, passage))
        options.clear_options()
        options.add_options(entries)
        if self.passages:
            first = min(self.passages)
            options.highlighted = highlighted if highlighted in self.passages else first

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        passage = self.passages.get(event.option_index)
        if passage is not None:
            self.post_message(self.PassageChosen(passage))
