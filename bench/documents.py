"""PDF conversion speed on a generated 1,000-page PDF; prints one JSON object.

- ``pypdfium2``: ralph-tui's converter (text per page), as ``read_corpus`` runs it cold;
- ``pypdf``: the pure-Python alternative, on the same file (why pypdfium2 was chosen);
- ``pdftotext``: poppler-utils, the baseline (goal: pypdfium2 within 1.5x of it);
- ``warm_cache``: ``read_corpus`` again with the extraction cache filled (goal <= 0.2 s);
- ``context_100mb``: a 100 MB document from ``Sandbox.start`` to the first cell's result,
  against writing and reading it back (goal <= 0.2 s; measured by ``bench/sandbox.py``).

Each figure is the median of ``--runs`` runs in this process.

    PYTHONPATH=. .venv/bin/python bench/documents.py [--pages 1000] [--runs 3]

The PDF is written by the tests' own writer (tests/documents/fixtures.py), hence PYTHONPATH.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from pypdf import PdfReader

from ralph_tui.documents import read_corpus
from ralph_tui.documents.cache import ExtractionCache
from tests.documents.fixtures import pdf_bytes

LINES_PER_PAGE = 40
BENCH = Path(__file__).parent


def make_pdf(path: Path, pages: int) -> None:
    lines = [
        [
            f"Page {number}, line {line}: the filters are backwashed every 48 hours "
            "unless head loss reaches 2.1 metres first."
            for line in range(LINES_PER_PAGE)
        ]
        for number in range(1, pages + 1)
    ]
    path.write_bytes(pdf_bytes(lines))


def median_s(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times), 3)


def _sandbox_bench() -> ModuleType:
    """bench/sandbox.py, whose 100 MB start-to-first-cell figure this reports too."""
    spec = importlib.util.spec_from_file_location("bench_sandbox", BENCH / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ralph-docs-") as tmp:
        pdf = Path(tmp) / "big.pdf"
        make_pdf(pdf, args.pages)
        cache_dir = Path(tmp) / "cache"
        figures = {
            "pypdfium2_s": median_s(lambda: read_corpus([pdf]), args.runs),
            "pypdf_s": median_s(
                lambda: [page.extract_text() for page in PdfReader(pdf).pages], args.runs
            ),
        }
        if shutil.which("pdftotext"):
            out = Path(tmp) / "out.txt"
            figures["pdftotext_s"] = median_s(
                lambda: subprocess.run(["pdftotext", str(pdf), str(out)], check=True), args.runs
            )
            figures["pypdfium2_vs_pdftotext"] = round(
                figures["pypdfium2_s"] / figures["pdftotext_s"], 2
            )
        read_corpus([pdf], cache=ExtractionCache(cache_dir))  # fill the cache
        figures["warm_cache_s"] = median_s(
            lambda: read_corpus([pdf], cache=ExtractionCache(cache_dir)), args.runs
        )
        result = {
            "context_100mb": asyncio.run(_sandbox_bench().context_100mb(args.runs * 3)),
            "pages": args.pages,
            "pdf_mb": round(pdf.stat().st_size / 1e6, 2),
            "runs": args.runs,
            **figures,
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
