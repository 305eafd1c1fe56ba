"""``ralph-tui index DOC`` and ``ralph-tui search DOC QUERY``: the retrieval index of a
document, and a search over it, without any LLM (unless the embedder is the OpenAI API)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable

from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.counts import counted
from ralph_tui.documents import Corpus
from ralph_tui.events import BaseEvent, Emit, IndexProgress
from ralph_tui.evidence import OCR_MARK
from ralph_tui.progress_lines import IndexProgressLines
from ralph_tui.retrieval.index import DocumentIndex
from ralph_tui.retrieval.retriever import LEGS, RetrievalResult
from ralph_tui.retrieval.search import (
    check_query,
    open_corpus_index,
    read_searchable,
    search_index,
)
from ralph_tui.thesaurus import also_searched

PREVIEW_CHARS = 300


def run_retrieval_command(args: argparse.Namespace) -> int:
    """``index`` or ``search``: bad input is one line and exit 2, with nothing written."""
    settings = settings_from_args(args)
    if args.command == "search":
        check_query(args.query)
    corpus = read_searchable([args.doc], settings, on_progress=_conversion_progress())
    for note in corpus.notices():
        _notice(note)
    index = asyncio.run(
        open_corpus_index(
            corpus,
            settings,
            rebuild=getattr(args, "rebuild", False),
            emit=_progress_printer(),
            on_notice=_notice,
        )
    )
    if args.command == "index":
        _print_index(index, corpus, as_json=args.json)
        return 0
    result = asyncio.run(search_index(index, corpus, settings, args.query, on_notice=_notice))
    _print_search(result, corpus, as_json=args.json)
    return 0


def _notice(message: str) -> None:
    print(f"ralph-tui: {message}", file=sys.stderr)


CONVERSION_PROGRESS_EVERY_S = 5.0


def _conversion_progress() -> Callable[[str, int, int], None]:
    """A long conversion's progress on stderr (an OCR'd scan takes seconds a page): every
    ``CONVERSION_PROGRESS_EVERY_S`` seconds and at a document's end, past that long."""
    started = last = time.monotonic()

    def show(name: str, done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= CONVERSION_PROGRESS_EVERY_S or (done == total and now - started >= 1):
            last = now
            print(f"converting {name}: {done}/{total} pages", file=sys.stderr, flush=True)

    return show


def _progress_printer() -> Emit:
    """Index progress on stderr (see ``IndexProgressLines``)."""
    lines = IndexProgressLines()

    def show(event: BaseEvent) -> None:
        text = lines(event) if isinstance(event, IndexProgress) else None
        if text is not None:
            print(text.strip(), file=sys.stderr, flush=True)

    return show


def _print_index(index: DocumentIndex, corpus: Corpus, *, as_json: bool) -> None:
    figures = index.figures
    if as_json:
        print(json.dumps({"documents": len(corpus.documents), **figures.to_json()}))
        return
    lexical = "from the cache" if figures.lexical_from_cache else "built"
    print(
        f"{counted(len(corpus.documents), 'document')}, {figures.chars:,} chars: "
        f"{figures.chunks:,} "
        f"chunks ({figures.chunk_size:,}-char windows, {figures.chunk_overlap:,} shared with "
        f"the next), {figures.words:,} distinct words"
    )
    print(f"  lexical (BM25): {lexical}")
    if figures.dense_skipped:
        print(f"  dense: skipped ({figures.dense_skipped})")
    else:
        source = "from the cache" if figures.vectors_from_cache else "built"
        print(f"  dense: {figures.embedder}, {figures.dim} dimensions, {source}")
    stages = ", ".join(f"{name} {ms / 1000:.2f} s" for name, ms in figures.ms.items())
    print(f"  time: {stages}")
    print(f"  cache: {figures.cache_folder or 'not written (the next run builds it again)'}")


def _print_search(result: RetrievalResult, corpus: Corpus, *, as_json: bool) -> None:
    if as_json:
        print(
            json.dumps(
                {
                    "query": result.diagnostics["query"],
                    "passages": [p.to_json() for p in result.passages],
                    "diagnostics": result.diagnostics,
                },
                ensure_ascii=False,
            )
        )
        return
    if not result.passages:
        print("no passage matches")
    for number, passage in enumerate(result.passages, 1):
        info = passage.info
        where = f" {info.document}" if info.document else ""
        where += f" {info.page_label}" if info.page else ""
        where += f" {OCR_MARK}" if info.ocr else ""
        print(f"{number}. {info.label}{where}   {_scores(passage.ranks, passage.scores)}")
        text = " ".join(info.text.split())
        cut = "..." if len(text) > PREVIEW_CHARS else ""
        print(f"   {text[:PREVIEW_CHARS]}{cut}")
    if also := also_searched(result.diagnostics.get("readerTerms")):
        print(f"(also searched for: {also})")
    skipped = result.diagnostics.get("skipped") or {}
    for stage, reason in skipped.items():
        print(f"({stage}: {reason})")


def _scores(ranks: dict[str, int], scores: dict[str, float]) -> str:
    parts = []
    for leg in LEGS:
        if leg in ranks:
            parts.append(f"{leg} #{ranks[leg]} ({scores[leg]:.3f})")
    if "maxsim" in scores:
        parts.append(f"maxsim {scores['maxsim']:.3f}")
    return "  ".join(parts)
