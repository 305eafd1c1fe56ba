"""An evidence bundle from a recorded session: its reported iteration's answer, claims,
quotes and coverage, every iteration's checks, the sources with their hashes, and each
quote in its surrounding passage, re-read from the source as it is now."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ralph_tui.config import Settings
from ralph_tui.documents import InputError, Limits
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.documents.corpus import read_one
from ralph_tui.events import RunStarted
from ralph_tui.evidence import QuoteLocation, Span
from ralph_tui.external.cache import PageCache
from ralph_tui.loops.iteration import best_of
from ralph_tui.loops.runner import extraction_cache
from ralph_tui.reports.bundle import (
    MAX_CHILD_LEVEL,
    MAX_ITEMS,
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    BundleChild,
    BundleIteration,
    BundlePassage,
    BundleQuote,
    BundleSource,
    BundleUsage,
    EvidenceBundle,
)
from ralph_tui.reports.source_places import NotADocumentFile, check_regular_file
from ralph_tui.traces.children import ChildNode, ChildTree
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.version import __version__

PASSAGE_REACH = 320
"""Characters a passage reaches at most before and after its quote (it stops sooner at a
paragraph break)."""

ANSWER_FIELD = {"qa": "answer", "task": "output"}
"""The output field that holds a mode's answer."""


def build_bundle(store: TraceStore, session_id: str, settings: Settings) -> EvidenceBundle:
    """The evidence bundle of the session ``session_id`` names (its whole id)."""
    record = store.load_session(session_id)
    traces = store.iterations(session_id)
    reported = best_of(traces)
    quotes = reported.quotes if reported else []
    texts = SourceTexts(file_sources(record) + page_sources(quotes, settings), settings)
    mode = "qa" if record.mode == "qa" else "task"
    return EvidenceBundle(
        generator=f"ralph-tui {__version__}",
        created_at=time.time(),
        session_id=record.session_id,
        mode=mode,
        query=record.query,
        status=effective_status(record),
        answer=answer_text(reported.output if reported else {}, mode),
        claims=reported.claims if reported else [],
        quotes=reported.quotes if reported else [],
        passages=passages(quotes, texts),
        sources=texts.sources_with_pages(),
        iterations=[timeline_entry(trace) for trace in traces],
        reported_iteration=reported.iteration if reported else None,
        coverage=reported.coverage if reported else None,
        models=(models := models_of(store, session_id, record)),
        settings=settings_as_run(record.settings, models),
        usage=BundleUsage(
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            llm_calls=record.llm_calls,
            cost_usd=record.cost_usd,
            unknown_cost_calls=record.unknown_cost_calls,
            estimated_calls=record.estimated_calls,
        ),
        **bundle_children(store.children(session_id)),
    )


def answer_text(output: dict[str, Any], mode: str) -> str:
    """The answer a mode's output holds, as text (a list of lines joined)."""
    value = output.get(ANSWER_FIELD[mode], "")
    if isinstance(value, list):
        return "\n".join(str(line) for line in value)
    return "" if value is None else str(value)


def bundle_children(trees: list[ChildTree]) -> dict[str, Any]:
    """The session's child agents as the bundle lists them (``children``, and
    ``children_cut`` when some are left out): each tree flattened in reading order, within
    the bundle's bounds (a session folder may come from someone else: past ``MAX_ITEMS``
    children or quotes the rest are left out, a text past its bound is cut)."""
    found: list[BundleChild] = []
    quotes = [MAX_ITEMS]
    cut = any(tree.truncated for tree in trees)
    for tree in trees:
        pending = [(node, 1) for node in reversed(tree.children)]
        while pending:
            if len(found) >= MAX_ITEMS:
                cut = True
                break
            node, level = pending.pop()
            found.append(bundle_child(tree, node, level, quotes))
            if level < MAX_CHILD_LEVEL:
                pending += [(child, level + 1) for child in reversed(node.children)]
            else:
                cut = cut or bool(node.children)
    cut = cut or quotes[0] < 0
    return {"children": found, "children_cut": cut}


def bundle_child(tree: ChildTree, node: ChildNode, level: int, quotes: list[int]) -> BundleChild:
    """One child of ``tree`` at ``level``; ``quotes``: how many more quotes the bundle takes."""
    child = BundleChild(
        iteration=tree.iteration,
        root=tree.agent[:MAX_NAME_CHARS],
        folder=node.folder[:MAX_NAME_CHARS],
        level=level,
        problem=(node.problem or "")[:MAX_NAME_CHARS] or None,
    )
    record = node.record
    if record is None:
        return child
    kept: list[BundleQuote] = []
    for quote in record.quotes:
        if len(kept) >= quotes[0]:
            quotes[0] = -1  # some left out: the bundle says so
            break
        try:
            kept.append(BundleQuote.model_validate(quote))
        except ValidationError:
            continue  # past a bundle's bounds (a crafted record): not a quote to check
    fields = {
        "agent": record.agent[:MAX_NAME_CHARS],
        "prompt": record.prompt[:MAX_TEXT_CHARS],
        "context": record.context[:MAX_NAME_CHARS],
        "status": record.status,
        "answer": record.answer[:MAX_TEXT_CHARS],
        "error": record.error[:MAX_TEXT_CHARS] if record.error else None,
        "steps": record.steps,
        "duration_ms": record.duration_ms,
        "quotes": kept,
    }
    try:
        whole = BundleChild.model_validate(child.model_dump() | fields)
    except ValidationError:
        child.problem = f"{node.folder}: its record is out of an evidence bundle's bounds"
        return child
    quotes[0] -= len(kept)
    return whole


def timeline_entry(trace: IterationTrace) -> BundleIteration:
    return BundleIteration(
        iteration=trace.iteration,
        passed=trace.passed,
        constraints=trace.constraints,
        hard_checks=trace.hard_validation.rules,
        judge_issues=trace.judge.issues if trace.judge else [],
        judge_ok=trace.judge.ok if trace.judge else None,
        failure_tag=trace.failure_tag,
        coverage=trace.coverage,
    )


def file_sources(record: SessionRecord) -> list[BundleSource]:
    """The session's documents as its record lists them (``documents`` in session.json)."""
    listed = (record.model_extra or {}).get("documents") or []
    return [
        BundleSource(
            name=str(entry.get("name", "")),
            kind="file",
            path=entry.get("path"),
            sha256=entry.get("sha256"),
            format=entry.get("format"),
            converter=str(entry.get("converter") or ""),
            pages=entry.get("pages"),
            ocr_pages=entry.get("ocr_pages") or [],
        )
        for entry in listed
        if isinstance(entry, dict)
    ]


def page_sources(quotes: list[QuoteLocation], settings: Settings) -> list[BundleSource]:
    """The external pages the quotes come from, each once, with its fetch time and (when the
    page cache still holds it) the hash of its body."""
    cache = PageCache(settings.external_cache)
    sources: dict[str, BundleSource] = {}
    for quote in quotes:
        if quote.url is None or quote.url in sources:
            continue
        cached = cache.load(quote.url)
        sources[quote.url] = BundleSource(
            name=quote.source or quote.url,
            kind="page",
            url=quote.url,
            sha256=(cached.content_hash or None) if cached else None,
            format=cached.format if cached else None,
            fetched_at=quote.fetched_at or (cached.fetched_at if cached else None),
        )
    return list(sources.values())


def models_of(store: TraceStore, session_id: str, record: SessionRecord) -> dict[str, str]:
    """Model by role, as the run announced them (``provider:model``), else as recorded."""
    events, _ = store.tail_events(session_id)
    started = [event for event in events if isinstance(event, RunStarted)]
    if started:
        return {"generate": started[-1].generate_model, "validate": started[-1].validate_model}
    settings = record.settings
    if settings.get("provider") == "offline":
        return {"generate": "offline", "validate": "offline"}
    pairs = (
        ("generate", settings.get("generateModel")),
        ("validate", settings.get("validateModel")),
    )
    return {role: str(model) for role, model in pairs if model}


MODEL_SETTING = {"generate": "generateModel", "validate": "validateModel"}
"""The recorded setting that configures each role's model."""


def settings_as_run(settings: dict[str, Any], models: dict[str, str]) -> dict[str, Any]:
    """The recorded settings with each role's model as it ran: an offline run records the
    configured models (``generateModel: claude-sonnet-4-6``) though none of them ran."""
    ran = dict(settings)
    for role, model in models.items():
        if MODEL_SETTING.get(role) in ran:
            ran[MODEL_SETTING[role]] = model
    if settings.get("provider") == "offline" and ran.get("subModel"):
        ran["subModel"] = models.get("generate", "offline")
    return ran


def passages(quotes: list[QuoteLocation], texts: SourceTexts) -> list[BundlePassage]:
    """Each located quote in the text around it, from its source's text as it reads now; a
    source that is gone, unreadable or changed since the run gives none."""
    found = []
    for quote in quotes:
        if quote.source is None or quote.start is None or quote.end is None:
            continue
        text = texts.text_of(quote.source)
        if text is None or quote.end > len(text) or quote.start >= quote.end:
            continue
        low, high = passage_bounds(text, quote.start, quote.end)
        found.append(
            BundlePassage(
                quote=quote.number,
                text=text[low:high],
                start=quote.start - low,
                end=quote.end - low,
            )
        )
    return found


def passage_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The span around ``[start, end)``: out to the paragraph breaks within
    ``PASSAGE_REACH``, else to a word boundary there."""
    reach_back = max(0, start - PASSAGE_REACH)
    low = text.rfind("\n\n", reach_back, start)
    if low >= 0:
        low += 2
    elif reach_back > 0:
        space = text.find(" ", reach_back, start)
        low = space + 1 if space >= 0 else reach_back
    else:
        low = 0
    reach_on = min(len(text), end + PASSAGE_REACH)
    high = text.find("\n\n", end, reach_on)
    if high < 0 and reach_on < len(text):
        space = text.rfind(" ", end, reach_on)
        high = space if space >= 0 else reach_on
    elif high < 0:
        high = len(text)
    return low, high


class SourceTexts:
    """The text of each source by name, read on first use: a file through the same
    conversion the run used (and its cache), a page from the external docs cache."""

    def __init__(self, sources: list[BundleSource], settings: Settings) -> None:
        self.sources = sources
        self.by_name = {source.name: source for source in sources}
        self.settings = settings
        self._texts: dict[str, str | None] = {}
        self._page_spans: dict[str, list[Span]] = {}

    def sources_with_pages(self) -> list[BundleSource]:
        """The sources, each document with pages given its pages' spans (read if need be)."""
        for source in self.sources:
            if source.pages:
                self.text_of(source.name)
        return [
            source.model_copy(update={"page_spans": self._page_spans.get(source.name, [])})
            for source in self.sources
        ]

    def text_of(self, name: str) -> str | None:
        if name not in self._texts:
            source = self.by_name.get(name)
            self._texts[name] = self._read(source) if source else None
        return self._texts[name]

    def _read(self, source: BundleSource) -> str | None:
        if source.kind == "page" and source.url:
            page = PageCache(self.settings.external_cache).load(source.url)
            return page.text if page and page.text else None
        # A session folder may come from elsewhere: its recorded path is read only when it
        # is a regular file whose bytes are the ones recorded, so a crafted record cannot
        # put a file of this machine (its spans tiling it) into a report to be shared.
        if not source.path or not source.sha256:
            return None
        try:
            path = check_regular_file(Path(source.path))
            limits = Limits.of(self.settings)  # (its OCR bound is part of the cache key)
            document = read_one(path, source.name, limits, cache=extraction_cache(self.settings))
        except (InputError, NotADocumentFile, OSError):
            return None
        if document.sha256 != source.sha256:
            return None  # changed since the run: its spans no longer point at the quotes
        if document.pages is not None:
            self._page_spans[source.name] = page_spans(document.pages)
        return document.text


def page_spans(pages: list[str]) -> list[Span]:
    """Each page's span in the document's text: its pages joined by ``PAGE_SEPARATOR``."""
    spans = []
    start = 0
    for page in pages:
        spans.append((start, start + len(page)))
        start += len(page) + len(PAGE_SEPARATOR)
    return spans
