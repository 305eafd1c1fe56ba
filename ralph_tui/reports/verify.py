"""``verify``: whether an evidence bundle's quotes still stand in their sources.

Each source is read again the same way (``reports.sources``); each quote is looked for at
its saved span, then anywhere in its source, and found to hold, to have moved (its new
span given), to have changed (the text there differs: the passage most like it is shown),
or to have lost its source. An external page not fetched is "not checked", never "holds".
"""

from __future__ import annotations

import bisect
import stat
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import httpx2
from pydantic import BaseModel, Field, ValidationError, computed_field

from ralph_tui.config import Settings
from ralph_tui.counts import counted
from ralph_tui.documents import InputError, Limits
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.errors import ExitCode
from ralph_tui.evidence import QuoteLocation
from ralph_tui.external.policy import UrlPolicy
from ralph_tui.external.transport import policy_client
from ralph_tui.json_input import JsonRefused, first_problem, read_json
from ralph_tui.reports.bundle import (
    BUNDLE_VERSION,
    MAX_BUNDLE_BYTES,
    BundleQuote,
    BundleSource,
    EvidenceBundle,
)
from ralph_tui.reports.closest import Closest, TooLong, WordIndex, closest_passage
from ralph_tui.reports.source_places import SourcePlaces
from ralph_tui.reports.sources import (
    Given,
    SourceCheck,
    SourceText,
    fetch_page_sources,
    not_fetched,
    page_fetcher,
    read_file_source,
)
from ralph_tui.reports.stoppable import Checkpoint, run_stoppable
from ralph_tui.validate.normalize import find_near_miss, normalize_quote
from ralph_tui.validate.qa import describe_differences

QuoteStatus = Literal["holds", "moved", "changed", "source_missing", "not_checked", "unlocated"]
QUOTE_STATUSES: tuple[QuoteStatus, ...] = get_args(QuoteStatus)
QUOTE_STATUS_LABELS: dict[QuoteStatus, str] = {
    "holds": "holds",
    "moved": "moved",
    "changed": "changed",
    "source_missing": "source missing",
    "not_checked": "not checked",
    "unlocated": "not located",
}
WINDOW_MARGIN = 200
"""Characters past a quote's length a place shows at most of its source."""
MIN_SHOWN_SIMILARITY = 0.6
"""A closest passage less alike than this to its quote (letter case aside) is not shown."""
MAX_DESCRIBED_CHARS = 20_000
"""Past this length a near miss's differences are named in general terms only."""
_MAX_OCCURRENCES = 1000
"""How many places of a quote are weighed to find the one nearest its saved span."""


class Place(BaseModel):
    """A span of a source's text, with its page and the span in that page for a PDF."""

    start: int
    end: int
    page: int | None = None
    page_start: int | None = None
    page_end: int | None = None
    text: str = ""
    """What the source holds there now: at most the quote's length and ``WINDOW_MARGIN``
    characters (the start of a longer span)."""

    @property
    def label(self) -> str:
        page = f"p. {self.page} " if self.page else ""
        return f"{page}{self.start}-{self.end}"


class QuoteResult(BaseModel):
    """One quote of the bundle, checked again."""

    number: int
    text: str
    source: str | None
    status: QuoteStatus
    detail: str
    """What was found, in words."""
    saved: Place | None = None
    """Where the bundle places it (its ``text`` empty unless the quote is still there)."""
    found: Place | None = None
    """Where it stands now (holds, moved)."""
    closest: Place | None = None
    """For a changed quote: the passage of its source most like it now."""
    similarity: float | None = None
    """How alike ``closest`` is to the quote, from 0 to 1."""
    ocr: bool = False
    """Whether the bundle says the quote's text was read by OCR (its page a scan)."""


class ChildQuoteResult(QuoteResult):
    """One quote of a child agent of the bundle (``EvidenceBundle.children``), checked again."""

    agent: str
    """The child whose quote it is (``worker/1.2``)."""


class VerifyReport(BaseModel):
    """Every quote of a bundle (its answer's and its child agents') and every source,
    checked again."""

    bundle: str
    session_id: str
    quotes: list[QuoteResult] = Field(default_factory=list)
    child_quotes: list[ChildQuoteResult] = Field(default_factory=list)
    """The quotes of the run's child agents, in the bundle's order of children."""
    sources: list[SourceCheck] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def counts(self) -> dict[str, int]:
        """The answer's quotes by status, in the order of ``QUOTE_STATUSES``, the statuses
        seen only."""
        return _counts(self.quotes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def child_counts(self) -> dict[str, int]:
        """The child agents' quotes by status, as ``counts``."""
        return _counts(self.child_quotes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """Whether every quote holds, the child agents' too."""
        return all(quote.status == "holds" for quote in [*self.quotes, *self.child_quotes])

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.ok else ExitCode.FAILED

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """One line: how many quotes, how many of each status, and what that means."""
        if not self.quotes and not self.child_quotes:
            return "the bundle holds no quote: nothing to check"
        said = [f"{counted(len(self.quotes), 'quote')}{_parts(self.counts)}"]
        if self.child_quotes:
            said.append(
                f"{counted(len(self.child_quotes), 'quote')} of child agents"
                f"{_parts(self.child_counts)}"
            )
        verdict = "every quote holds" if self.ok else "not every quote holds"
        return "; ".join([*said, verdict])


def _counts(quotes: Sequence[QuoteResult]) -> dict[str, int]:
    seen = Counter(quote.status for quote in quotes)
    return {status: seen[status] for status in QUOTE_STATUSES if seen[status]}


def _parts(counts: dict[str, int]) -> str:
    parts = ", ".join(
        f"{count} {QUOTE_STATUS_LABELS[status]}"  # type: ignore[index]
        for status, count in counts.items()
    )
    return f": {parts}" if parts else ""


def load_bundle(path: Path) -> EvidenceBundle:
    """The bundle in ``path``; ``InputError`` (one line) when it cannot be one: not a
    regular file, past ``MAX_BUNDLE_BYTES``, not JSON, past ``parse_json``'s bounds (nesting,
    64-bit numbers) or past the bundle schema's (negative or reversed spans, sizes)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise InputError(f"{path} is not a regular file: not an evidence bundle")
        raw = read_json(path, max_bytes=MAX_BUNDLE_BYTES)
    except FileNotFoundError:
        raise InputError(f"bundle not found: {path} (check the path)") from None
    except OSError as exc:
        raise InputError(f"cannot read the bundle {path}: {exc.strerror or exc}") from None
    except JsonRefused as exc:
        raise InputError(f"{exc.message}: not an evidence bundle") from None
    version = raw.get("bundle_version") if isinstance(raw, dict) else None
    if version != BUNDLE_VERSION:
        what = "has no bundle_version" if version is None else f"is bundle version {version}"
        raise InputError(
            f"{path} {what}; this ralph-tui reads evidence bundles of version {BUNDLE_VERSION}"
        )
    try:
        return EvidenceBundle.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"{path} is not a valid evidence bundle ({first_problem(exc)})") from None


async def verify_bundle(
    bundle: EvidenceBundle,
    bundle_path: Path,
    given: Given,
    settings: Settings,
    *,
    offline: bool = False,
    trust_paths: bool = False,
    client: httpx2.AsyncClient | None = None,
) -> VerifyReport:
    """Read every source of ``bundle`` again and check each quote against it.

    ``given``: the files ``--doc`` names. ``trust_paths``: read a file's saved path even
    outside the bundle's folder and the working folder. ``client``: the HTTP client pages
    are fetched through (one of the process's own when ``None``); with ``offline`` none is.
    """
    report = VerifyReport(bundle=str(bundle_path), session_id=bundle.session_id)
    places = SourcePlaces.of(bundle_path, trust_paths=trust_paths)
    texts = _read_files(bundle.sources, given, places, settings, report)
    pages = [source for source in bundle.sources if source.kind == "page"]
    if offline:
        report.sources += [not_fetched(source) for source in pages]
    elif pages:
        await _fetch_pages(pages, settings, client, report, texts)
    report.notes += [
        f"--doc {path} is none of the bundle's sources (by name or SHA-256): not used"
        for path in given.unmatched([s for s in bundle.sources if s.kind == "file"])
    ]
    checks = {check.name: check for check in report.sources}
    # The children's quotes are checked with the answer's, in one pass: each source's words
    # are indexed once whoever quotes it (the bundle bounds their sum as it bounds its own).
    owners = [child.agent or child.folder for child in bundle.children for _ in child.quotes]
    quotes = [*bundle.quotes, *(quote for child in bundle.children for quote in child.quotes)]
    results = await run_stoppable(
        lambda checkpoint: _check_quotes(quotes, bundle.sources, checks, texts, checkpoint)
    )
    report.quotes = results[: len(bundle.quotes)]
    report.child_quotes = [
        ChildQuoteResult(agent=agent, **result.model_dump())
        for agent, result in zip(owners, results[len(bundle.quotes) :], strict=True)
    ]
    return report


def _check_quotes(
    quotes: list[BundleQuote],
    sources: list[BundleSource],
    checks: dict[str, SourceCheck],
    texts: dict[str, SourceText],
    checkpoint: Checkpoint,
) -> list[QuoteResult]:
    """Every quote checked, in their order; the quotes of one source one after another, so
    each source's words are indexed (and its normalized text cached) once."""
    named = []
    for quote in quotes:
        source = _source_of(quote, sources)
        named.append((source.name if source else quote.source) or "")
    words: dict[str, WordIndex] = {}

    def words_of(name: str) -> WordIndex:
        if name not in words:
            words[name] = WordIndex(texts[name].text, checkpoint)
        return words[name]

    results: dict[int, QuoteResult] = {}
    for position in sorted(range(len(named)), key=named.__getitem__):
        checkpoint()
        name = named[position]
        results[position] = check_quote(
            quotes[position],
            checks.get(name),
            texts.get(name),
            words=(lambda name=name: words_of(name)),  # type: ignore[misc]
            checkpoint=checkpoint,
        )
    return [results[position] for position in range(len(named))]


def _read_files(
    sources: list[BundleSource],
    given: Given,
    places: SourcePlaces,
    settings: Settings,
    report: VerifyReport,
) -> dict[str, SourceText]:
    texts: dict[str, SourceText] = {}
    cache = ExtractionCache(settings.out_dir / "cache" / "documents")
    for source in sources:
        if source.kind == "file":
            check, text = read_file_source(source, given, places, Limits.of(settings), cache)
            report.sources.append(check)
            if text is not None:
                texts[source.name] = text
    return texts


async def _fetch_pages(
    pages: list[BundleSource],
    settings: Settings,
    client: httpx2.AsyncClient | None,
    report: VerifyReport,
    texts: dict[str, SourceText],
) -> None:
    policy = UrlPolicy.of(settings)
    http = client or policy_client(policy)
    try:
        fetcher = page_fetcher(
            http, settings.crawl_timeout_s, int(settings.external_page_max_mb * 1_000_000), policy
        )
        for check, text in await fetch_page_sources(pages, fetcher):
            report.sources.append(check)
            if text is not None:
                texts[check.name] = text
    finally:
        if client is None:
            await http.aclose()


def _source_of(quote: QuoteLocation, sources: list[BundleSource]) -> BundleSource | None:
    for source in sources:
        if quote.source == source.name or (quote.url and quote.url == source.url):
            return source
    return None


def check_quote(
    quote: QuoteLocation,
    source: SourceCheck | None,
    text: SourceText | None,
    *,
    words: Callable[[], WordIndex] | None = None,
    checkpoint: Checkpoint | None = None,
) -> QuoteResult:
    """``quote`` against its source's text now: at its saved span, then anywhere in it.

    ``words``: the source's word index, when several quotes are looked for in it;
    ``checkpoint``: called between pieces of the search, to stop it (``reports.stoppable``).
    """
    result = QuoteResult(
        number=quote.number,
        text=quote.text,
        source=quote.source,
        status="unlocated",
        detail="",
        ocr=quote.ocr,
    )
    if quote.source is None:
        result.detail = "the bundle places it in no source (it was not found when saved)"
        return result
    if source is None or text is None:
        unchecked = source is not None and source.status == "not_checked"
        result.status = "not_checked" if unchecked else "source_missing"
        result.detail = _no_text(quote, source)
        return result
    if quote.page is not None and quote.page in text.unread_pages:
        # A scanned page not read by OCR here: what it shows is unknown, not changed.
        result.status = "not_checked"
        result.detail = f"page {quote.page} has no text layer and was not read now: " + (
            text.unread_why or "OCR did not read it"
        )
        return result
    saved = _saved_span(quote, text)
    if saved is not None:
        result.saved = _place(text, *saved, quote=quote.text)
        if _matches(text.text[saved[0] : saved[1]], quote):
            result.found = result.saved
            return _holds_or_moved_page(result, quote)
        # What stands at a span the quote is not at is not shown: a bundle from someone
        # else could name spans that tile a whole file.
        result.saved.text = ""
    search = _Search(text, words, checkpoint)
    return _elsewhere(result, quote, search, saved[0] if saved else None)


@dataclass
class _Search:
    """A source's text, with how its closest passages are looked for."""

    text: SourceText
    words: Callable[[], WordIndex] | None
    checkpoint: Checkpoint | None

    def closest(self, quote: str, near: int | None) -> Closest | TooLong | None:
        return closest_passage(
            self.text.text,
            quote,
            near,
            index=self.words() if self.words else None,
            checkpoint=self.checkpoint or (lambda: None),
        )


def _no_text(quote: QuoteLocation, source: SourceCheck | None) -> str:
    if source is None:
        return f"the bundle lists no source {quote.source!r}"
    return source.detail or f"{source.name} could not be read"


def _holds_or_moved_page(result: QuoteResult, quote: QuoteLocation) -> QuoteResult:
    """At its span: it holds, unless the pages now fall differently around it."""
    found = result.found
    assert found is not None
    # The page and where the quote starts in it; its end in the page is implied (a quote
    # running onto the next page ends past its own page's text).
    same_page = quote.page is None or (
        quote.page == found.page and quote.page_start in (None, found.page_start)
    )
    if same_page:
        result.status, result.detail = "holds", "the same text at the same place"
        if quote.ocr:
            result.detail += " (the page read by OCR again)"
    else:
        result.status = "moved"
        result.detail = f"the same text at the same offset, now on page {found.page}"
    return result


def _elsewhere(
    result: QuoteResult, quote: QuoteLocation, search: _Search, near: int | None
) -> QuoteResult:
    """Not at its saved span: moved if its source still holds it, else changed."""
    text = search.text
    start = _nearest_occurrence(text.text, quote.text, near or 0)
    if start is not None:
        end = start + len(quote.text)
        result.status, result.found = "moved", _place(text, start, end, quote=quote.text)
        shift = start - near if near is not None else 0
        result.detail = f"the same text, now at {result.found.label}{_shift_words(shift)}"
        return result
    near_miss = find_near_miss(text.text, quote.text)
    if near_miss is not None and quote.found == "near":
        result.status, result.found = "moved", _place(text, *near_miss, quote=quote.text)
        result.detail = f"found (as before, up to typography) at {result.found.label}"
        return result
    result.status = "changed"
    if near_miss is not None:
        result.closest = _place(text, *near_miss, quote=quote.text)
        result.similarity = 1.0
        result.detail = (
            f"the source now differs from it only in {_differences(text, near_miss, quote.text)}"
        )
        return result
    closest = search.closest(quote.text, near)
    if closest is None:
        result.detail = "its source holds nothing like it now"
        return result
    if isinstance(closest, TooLong):
        result.detail = (
            "not in its source any more; closest passage not checked: too long "
            f"({len(quote.text):,} characters; the closest passage is looked for up to "
            f"{closest.longest:,})"
        )
        return result
    if closest.similarity_any_case < MIN_SHOWN_SIMILARITY:
        # Unrelated texts share about a third of their letters in order: a passage this far
        # from the quote says nothing about it, and would show a stranger's bundle pieces of
        # a file it does not know.
        result.detail = (
            "not in its source any more, nor anything like it (the closest passage is "
            f"{closest.similarity_any_case:.0%} alike, at {closest.start}-{closest.end}: "
            "not shown)"
        )
        return result
    result.closest = _place(text, closest.start, closest.end, quote=quote.text)
    result.similarity = closest.similarity
    result.detail = (
        f"not in its source any more; the closest passage ({closest.similarity:.0%} alike) "
        f"is at {result.closest.label}"
    )
    return result


def _differences(text: SourceText, span: tuple[int, int], quote: str) -> str:
    """What differs between ``quote`` and the near miss at ``span`` (in general terms past
    ``MAX_DESCRIBED_CHARS``, where naming each difference would take too long)."""
    if len(quote) > MAX_DESCRIBED_CHARS:
        return "typography (quote marks, dashes, white space or character forms)"
    return describe_differences(text.text[span[0] : span[1]], quote)


def _shift_words(shift: int) -> str:
    if shift == 0:
        return ""
    return f" ({abs(shift):,} characters {'later' if shift > 0 else 'earlier'})"


def _matches(there: str, quote: QuoteLocation) -> bool:
    """The saved span holds the quote as the run found it (verbatim, or up to typography
    for a quote the run found as a near miss)."""
    if there == quote.text:
        return True
    return quote.found == "near" and normalize_quote(there) == normalize_quote(quote.text)


def _nearest_occurrence(text: str, quote: str, near: int) -> int | None:
    """The start of the place of ``quote`` in ``text`` nearest ``near``, if any."""
    best: int | None = None
    position = text.find(quote)
    for _ in range(_MAX_OCCURRENCES):
        if position < 0:
            break
        if best is None or abs(position - near) < abs(best - near):
            best = position
        position = text.find(quote, position + 1)
    return best


def _page_starts(text: SourceText) -> list[int] | None:
    if text.pages is None:
        return None
    starts, offset = [], 0
    for page in text.pages:
        starts.append(offset)
        offset += len(page) + len(PAGE_SEPARATOR)
    return starts


def _saved_span(quote: QuoteLocation, text: SourceText) -> tuple[int, int] | None:
    """The quote's saved span in the text: its own, or from its page and page span."""
    if quote.start is not None and quote.end is not None:
        return quote.start, quote.end
    starts = _page_starts(text)
    page, page_start, page_end = quote.page, quote.page_start, quote.page_end
    if not starts or not page or page > len(starts) or page_start is None or page_end is None:
        return None
    return starts[page - 1] + page_start, starts[page - 1] + page_end


def _place(text: SourceText, start: int, end: int, *, quote: str) -> Place:
    """The place ``[start, end)``, with the text there: the quote's length and
    ``WINDOW_MARGIN`` characters at most, however long the span (a bundle's spans are
    hints, and a window around a quote, never a whole source, is shown)."""
    shown_end = min(end, start + len(quote) + WINDOW_MARGIN)
    place = Place(start=start, end=end, text=text.text[start:shown_end])
    starts = _page_starts(text)
    if starts:
        index = max(bisect.bisect_right(starts, start) - 1, 0)
        place.page = index + 1
        place.page_start, place.page_end = start - starts[index], end - starts[index]
    return place
