"""Recorded sessions to build reports from: session folders written through the trace
store, with iteration traces whose quotes, claims and coverage are filled in here, each
quote's span found in the documents' real converted text."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.config import Settings, load_settings
from ralph_tui.documents import Limits
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.documents.corpus import Document, read_one
from ralph_tui.events import RunStarted
from ralph_tui.evidence import Claim, Coverage, DocumentCoverage, QuoteLocation
from ralph_tui.external.cache import CachedPage, PageCache
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

SAMPLES = Path(__file__).parents[1] / "documents" / "samples"

NOTES = """# Filter house notes

The filters are backwashed every 48 hours, or sooner when the head loss passes 2.4 m.
Operators log each backwash with its start time & duration.

Chlorine dosing <stays> at 0.8 mg/l unless the turbidity rises above 1 NTU.

A "special" note: never open valve V-12 while the pump runs.
"""

PAGE_URL = "https://example.org/manual/backwash"
PAGE_TEXT = "Backwash pumps run at 60 % speed for the first five minutes, then full speed."
FETCHED_AT = 1_760_000_000.0


@dataclass
class Quoted:
    """A quote to place: its text and the document (or page URL) it is from."""

    text: str
    source: str


QUOTES = [
    Quoted(
        "The filters are backwashed every 48 hours, or sooner when the head loss passes 2.4 m.",
        "notes.md",
    ),
    Quoted("The pump seals are inspected every three months", "pump.pdf"),
    Quoted("Spare parts are counted on the first working day of every month.", "pump.pdf"),
    Quoted("Chlorine dosing <stays> at 0.8 mg/l", "notes.md"),
    Quoted("Backwash pumps run at 60 % speed for the first five minutes", PAGE_URL),
]
ANSWER = [
    "- The filters are backwashed every 48 hours, sooner past 2.4 m of head loss.",
    "- Pump seals are inspected quarterly & spare parts counted monthly.",
    "- <Chlorine> stays at 0.8 mg/l.",
    "- Backwash pumps start at 60 % speed.",
]
CLAIM_QUOTES = [[1], [2, 3], [4], [5]]
VERDICTS = ["supported", "supported", "partly_supported", "unsupported"]


def settings_for(out_dir: Path) -> Settings:
    return load_settings({"out_dir": out_dir})


def documents(folder: Path) -> list[Document]:
    """The two documents of the session, copied into ``folder`` and converted."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.md").write_text(NOTES, encoding="utf-8")
    shutil.copy(SAMPLES / "pump.pdf", folder / "pump.pdf")
    return [read_one(folder / name, name, Limits()) for name in ("notes.md", "pump.pdf")]


def locate(number: int, quoted: Quoted, docs: dict[str, Document]) -> QuoteLocation:
    """Where ``quoted`` stands in its document (or page), as the quote-locating step says."""
    if quoted.source == PAGE_URL:
        start = PAGE_TEXT.index(quoted.text)
        return QuoteLocation(
            number=number, text=quoted.text, found="exact", source=PAGE_URL, start=start,
            end=start + len(quoted.text), url=PAGE_URL, fetched_at=FETCHED_AT,
        )  # fmt: skip
    document = docs[quoted.source]
    start = document.text.index(quoted.text)
    location = QuoteLocation(
        number=number, text=quoted.text, found="exact", source=document.name, start=start,
        end=start + len(quoted.text),
    )  # fmt: skip
    if document.pages is None:
        return location
    offset = 0
    for page_number, page in enumerate(document.pages, 1):
        if offset <= start < offset + len(page):
            page_start = start - offset
            return location.model_copy(
                update={"page": page_number, "page_start": page_start,
                        "page_end": page_start + len(quoted.text)}
            )  # fmt: skip
        offset += len(page) + len(PAGE_SEPARATOR)
    raise AssertionError(f"{quoted.text!r} is on no page")


def coverage_of(docs: list[Document], share: float) -> Coverage:
    return Coverage(
        documents=[
            DocumentCoverage(
                document=doc.name,
                chars=len(doc.text),
                spans=[(0, int(len(doc.text) * share)), (len(doc.text) - 10, len(doc.text))],
            )
            for doc in docs
        ],
        searches=["backwash", "seal"],
    )


def trace(
    iteration: int, passed: bool, quotes: list[QuoteLocation], docs: list[Document]
) -> IterationTrace:
    claims = [
        Claim(
            line=n,
            text=line,
            quotes=CLAIM_QUOTES[n - 1],
            verdict=VERDICTS[n - 1] if passed else None,
            missing="" if VERDICTS[n - 1] == "supported" else "the quote does not say <why>",
        )
        for n, line in enumerate(ANSWER, 1)
    ]
    earlier = range(iteration - 1)
    constraints = [f"constraint {n} of iteration {iteration} & <more>" for n in earlier]
    failed_check = "" if passed else "quote 2 <not> found"
    issues = [] if passed else [{"message": f"line {iteration} is vague & short"}]
    return IterationTrace(
        iteration=iteration,
        query="How often are the filters backwashed?",
        constraints=constraints,
        output={"answer": "\n".join(ANSWER) if passed else f"- draft {iteration}",
                "evidence": [quote.text for quote in quotes]},
        hard_validation={"ok": passed, "rules": [
            {"name": "bullets", "ok": True, "message": ""},
            {"name": "quotes_verbatim", "ok": passed, "message": failed_check},
        ]},
        judge={"ok": passed, "issues": issues},
        passed=passed,
        failure_tag=None if passed else "judge",
        quotes=quotes if passed else quotes[:1],
        claims=claims if passed else [],
        coverage=coverage_of(docs, 0.1 + 0.8 * passed),
    )  # fmt: skip


def record_session(tmp_path: Path, iterations: int = 3) -> tuple[Settings, str]:
    """A finished QA session of ``iterations`` iterations, the last one passing, over a
    Markdown file, a PDF and an external page in the page cache."""
    docs = documents(tmp_path / "docs")
    settings = settings_for(tmp_path / "out")
    PageCache(settings.external_cache).save(
        CachedPage(url=PAGE_URL, final_url=PAGE_URL, fetched_at=FETCHED_AT, status=200,
                   text=PAGE_TEXT, content_hash="ab" * 32, format="html")
    )  # fmt: skip
    by_name = {doc.name: doc for doc in docs}
    quotes = [locate(n, quoted, by_name) for n, quoted in enumerate(QUOTES, 1)]
    store = TraceStore(settings.out_dir)
    handle = store.create_session(
        SessionRecord(
            mode="qa",
            query="How often are the filters backwashed, & what <triggers> it?",
            doc_path=str(docs[0].path),
            settings={"provider": "anthropic", "maxIters": iterations, "variant": None},
            documents=[doc.record() for doc in docs],
            created_at=time.time(),
        )
    )
    handle.append_event(
        RunStarted(mode="qa", query="q", doc_path=str(docs[0].path), doc_chars=1, max_iters=3,
                   generate_model="anthropic:claude-sonnet-4-5", validate_model="openai:gpt-5")
    )  # fmt: skip
    for number in range(1, iterations + 1):
        handle.write_iteration(trace(number, number == iterations, quotes, docs))
    handle.finish("passed", input_tokens=12_345, output_tokens=678, llm_calls=9, cost_usd=0.0421)
    store.close()
    return settings, handle.session_id
