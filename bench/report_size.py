"""Measure the reports of a 20-iteration QA session over a PDF; prints one JSON object.

The session quotes one line from each of ``--quotes`` pages of the PDF (so the HTML report
embeds that many page pictures), and each iteration carries constraints, failed checks, judge
issues and coverage. Figures: each format's size in bytes and the time to build and render
it. Runs in a temp dir.

    .venv/bin/python bench/report_size.py [--pdf FILE] [--iterations N] [--quotes N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from ralph_tui.config import load_settings
from ralph_tui.documents import Limits
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.documents.corpus import read_one
from ralph_tui.evidence import Claim, Coverage, DocumentCoverage, QuoteLocation
from ralph_tui.reports.build import build_bundle
from ralph_tui.reports.formats import REPORT_FORMATS
from ralph_tui.reports.render import render
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

SAMPLE_PDF = Path(__file__).parents[1] / "tests" / "documents" / "samples" / "pump.pdf"


def quotes_of(pages: list[str], wanted: int) -> list[QuoteLocation]:
    """The longest line of each of the first ``wanted`` pages that have text, located."""
    quotes: list[QuoteLocation] = []
    offset = 0
    for number, page in enumerate(pages, 1):
        lines = [line for line in page.split("\n") if len(line) > 20]
        if lines and len(quotes) < wanted:
            line = max(lines, key=len)
            at = page.index(line)
            quotes.append(
                QuoteLocation(
                    number=len(quotes) + 1, text=line, found="exact", source="doc.pdf",
                    start=offset + at, end=offset + at + len(line), page=number,
                    page_start=at, page_end=at + len(line),
                )
            )  # fmt: skip
        offset += len(page) + len(PAGE_SEPARATOR)
    return quotes


def record(folder: Path, pdf: Path, iterations: int, wanted: int) -> tuple[TraceStore, str]:
    shutil.copy(pdf, folder / "doc.pdf")
    document = read_one(folder / "doc.pdf", "doc.pdf", Limits())
    quotes = quotes_of(document.pages or [document.text], wanted)
    store = TraceStore(folder / "out")
    handle = store.create_session(
        SessionRecord(mode="qa", query="What does the document say?",
                      documents=[document.record()], settings={"maxIters": iterations})
    )  # fmt: skip
    chars = len(document.text)
    for n in range(1, iterations + 1):
        handle.write_iteration(iteration_trace(n, n == iterations, quotes, chars, iterations))
    handle.finish("passed", input_tokens=250_000, output_tokens=12_000, llm_calls=60)
    return store, handle.session_id


def iteration_trace(
    n: int, passed: bool, quotes: list[QuoteLocation], chars: int, iterations: int
) -> IterationTrace:
    """Iteration ``n``: its constraints, checks, judge issues, claims and coverage."""
    rules = [
        {"name": "bullet_format", "ok": True},
        {"name": "evidence_verbatim", "ok": passed, "message": "quote 2 not found"},
    ]
    claims = [
        Claim(line=q.number, text=f"- Claim about: {q.text[:60]}", quotes=[q.number],
              verdict="supported" if passed else None)
        for q in quotes
    ]  # fmt: skip
    read = [(0, chars * n // (iterations * 2))]
    return IterationTrace(
        iteration=n,
        constraints=[f"Constraint {c}: quote the exact sentence for line {c}." for c in range(n)],
        output={"answer": "\n".join(claim.text for claim in claims)},
        hard_validation={"ok": passed, "rules": rules},
        judge={"ok": passed, "issues": [] if passed else [{"message": "line 3 overreaches"}]},
        passed=passed,
        quotes=quotes,
        claims=claims,
        coverage=Coverage(
            documents=[DocumentCoverage(document="doc.pdf", chars=chars, spans=read)],
            searches=["mime", "glob", "magic"],
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", type=Path, default=SAMPLE_PDF)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--quotes", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        store, session_id = record(folder, args.pdf.resolve(), args.iterations, args.quotes)
        settings = load_settings({"out_dir": folder / "out"})
        started = time.perf_counter()
        bundle = build_bundle(store, session_id, settings)
        figures: dict[str, object] = {
            "iterations": args.iterations,
            "quotes": len(bundle.quotes),
            "build_ms": round((time.perf_counter() - started) * 1000, 1),
        }
        for fmt in REPORT_FORMATS:
            started = time.perf_counter()
            text = render(bundle, fmt)
            figures[f"{fmt}_bytes"] = len(text.encode("utf-8"))
            figures[f"{fmt}_ms"] = round((time.perf_counter() - started) * 1000, 1)
        store.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
