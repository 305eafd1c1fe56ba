"""Filings: evidence-page hit@1/3/5/10 on ten annual reports; prints one JSON object.

The questions (``bench/data/filings_questions.jsonl``, see ``bench/data/README.md``) name a
filing and every page of it that states the answer. Each question is asked of:

- ralph-tui's own search with keyless defaults (the offline embedder, fusion and the MaxSim
  rerank as ``--rerank auto`` leaves it), and the same with ``--rerank off`` (fusion alone);
  only ``topK`` is raised to 10, which changes no ranking (the passages are cut from one
  order). A found passage names its pages three ways: ``label_page``, the page search
  labels it with (what it reports), ``first_page``, the page its first character is on (what
  search reported before passages were labelled by where their text is), and
  ``touched_pages``, every page its span overlaps;
- plain page BM25 (``bm25s``: one page = one document; bm25s's own tokenizer with English
  stopwords and the PyStemmer English stemmer when installed), over the same page texts.

Both scopes: ``per_document`` (one filing indexed, its own questions asked) and ``folder``
(all filings in one index; a hit needs the right filing AND one of its evidence pages).
hit@k counts the first k passages (or k pages for BM25); figures overall and per kind
(``metrics``, ``domain``, ``text``).

Speed: the cold index of the filing with the most pages (conversion + chunks + vectors, a
fresh cache, each run in a child process, timed from before the conversion: Python's start and
imports are not counted) against ``pdftotext`` on the same file, in turns, medians (the
machine is shared: single runs swing by 2x); said plainly when ``pdftotext`` is absent
(Debian's ``poppler-utils`` has it). And each search's latency (rerank on).

    .venv/bin/python bench/filings.py [--doc ADOBE_2019_10K.pdf] [--no-folder] [--no-timing]
        [--folder ../shared/corpora/filings] [--timing-runs 3] [--misses N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings
from ralph_tui.documents import Corpus
from ralph_tui.json_input import parse_json
from ralph_tui.retrieval.search import open_corpus_index, read_searchable, search_index

HERE = Path(__file__).parent
QUESTIONS = HERE / "data" / "filings_questions.jsonl"
FOLDER = HERE.parent.parent / "shared" / "corpora" / "filings"
KS = (1, 3, 5, 10)
KINDS = ("metrics", "domain", "text")
# The page labels a run is scored on: ralph-tui's passage labels two ways, BM25's pages.
METHODS = (
    "ralph_label_page",
    "ralph_norerank_label_page",
    "ralph_first_page",
    "ralph_touched_pages",
    "ralph_norerank_first_page",
    "ralph_norerank_touched_pages",
    "bm25_pages",
)

Found = list[tuple[str, frozenset[int]]]
"""A ranked list of (document, pages) a method returned for one question."""


@dataclass(frozen=True)
class Question:
    id: str
    doc: str
    kind: str
    question: str
    answer: str
    pages: frozenset[int]
    primary: int
    found_by: tuple[str, ...] = ()
    excluded: frozenset[int] = frozenset()


@dataclass
class Ranked:
    """What each method returned for each question, and how long ralph-tui's search took."""

    found: dict[str, dict[str, Found]] = field(default_factory=lambda: defaultdict(dict))
    latency_ms: list[float] = field(default_factory=list)


def load_questions(path: Path) -> list[Question]:
    """The questions of a JSONL file, one object a line (``#`` lines are comments)."""
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        data = parse_json(line, f"{path.name} line {number}")
        questions.append(
            Question(
                id=data["id"],
                doc=data["doc"],
                kind=data["kind"],
                question=data["question"],
                answer=data["answer"],
                pages=frozenset(data["pages"]),
                primary=data["primary"],
                found_by=tuple(data.get("found_by", ())),
                excluded=frozenset(data.get("excluded", ())),
            )
        )
    return questions


def hit_at(found: Found, question: Question, k: int) -> bool:
    """Whether one of the first ``k`` results is the question's filing on an evidence page."""
    return any(doc == question.doc and pages & question.pages for doc, pages in found[:k])


def scores(questions: Sequence[Question], found: dict[str, Found]) -> dict[str, Any]:
    """hit@k of one method, overall and per kind, over the questions it answered."""

    def block(group: Sequence[Question]) -> dict[str, Any]:
        asked = [q for q in group if q.id in found]
        figures: dict[str, Any] = {"n": len(asked)}
        for k in KS:
            hits = sum(hit_at(found[q.id], q, k) for q in asked)
            figures[f"hit@{k}"] = round(hits / len(asked), 3) if asked else None
        return figures

    result = {"all": block(questions)}
    for kind in KINDS:
        result[kind] = block([q for q in questions if q.kind == kind])
    return result


def page_texts(corpus: Corpus) -> list[tuple[str, int, str]]:
    """(document, page, text) of every page of the corpus, as ralph-tui extracted it."""
    return [
        (entry["name"], page["page"], corpus.text[page["start"] : page["end"]])
        for entry in corpus.table
        for page in entry["pages"]
    ]


def passage_pages(corpus: Corpus, start: int, end: int) -> tuple[str, int, frozenset[int]]:
    """The document holding ``start``, the page of ``start`` (what search reports) and every
    page of that document the span ``[start, end)`` overlaps (the first page included)."""
    source = corpus.source_of(start)
    if source is None:
        return "", 0, frozenset()
    first = source.page or 0
    entry = next((e for e in corpus.table if e["name"] == source.document), None)
    pages = entry["pages"] if entry else []
    touched = {page["page"] for page in pages if page["start"] < end and start < page["end"]}
    return source.document, first, frozenset(touched | {first})


def check_pages(questions: Sequence[Question], corpus: Corpus) -> list[str]:
    """Questions whose recorded pages no longer match their answer patterns in this
    extraction (the pages found again, less those recorded as not evidence)."""
    import re

    texts = {(doc, page): " ".join(text.split()) for doc, page, text in page_texts(corpus)}
    problems = []
    for q in questions:
        if not q.found_by:
            continue
        matched = {
            page
            for (doc, page), text in texts.items()
            if doc == q.doc and any(re.search(p, text, re.I) for p in q.found_by)
        }
        if matched - q.excluded != q.pages:
            problems.append(f"{q.id}: recorded {sorted(q.pages)}, found {sorted(matched)}")
    return problems


def settings_of(out: Path, rerank: str) -> Settings:
    """Keyless defaults (the offline embedder: what ``auto`` picks without a key), topK 10."""
    return Settings(_env_file=None, out_dir=out, embedder="offline", top_k=10, rerank=rerank)


async def ask_ralph(
    corpus: Corpus, questions: Sequence[Question], out: Path, ranked: Ranked
) -> dict[str, Any]:
    """Index the corpus once (cold: ``out`` is fresh) and ask each question, rerank on and off."""
    started = time.perf_counter()
    index = await open_corpus_index(corpus, settings_of(out, "auto"))
    index_s = time.perf_counter() - started
    for rerank, prefix in (("auto", "ralph"), ("off", "ralph_norerank")):
        settings = settings_of(out, rerank)
        for q in questions:
            began = time.perf_counter()
            result = await search_index(index, corpus, settings, q.question)
            if rerank == "auto":
                ranked.latency_ms.append((time.perf_counter() - began) * 1000)
            first: Found = []
            touched: Found = []
            label: Found = []
            for passage in result.passages:
                if passage.info.span is None:
                    continue
                doc, page, pages = passage_pages(corpus, *passage.info.span)
                first.append((doc, frozenset([page])))
                touched.append((doc, pages))
                label.append((doc, frozenset([passage.info.page or page])))
            ranked.found[f"{prefix}_label_page"][q.id] = label
            ranked.found[f"{prefix}_first_page"][q.id] = first
            ranked.found[f"{prefix}_touched_pages"][q.id] = touched
    return {"index_s": round(index_s, 2), "chunks": len(index.chunks)}


def ask_bm25(corpus: Corpus, questions: Sequence[Question], ranked: Ranked) -> dict[str, Any]:
    """Plain page BM25 over the same page texts: one page, one document."""
    import bm25s

    pages = page_texts(corpus)
    stemmer, stemmer_name = _stemmer()
    started = time.perf_counter()
    tokens = bm25s.tokenize(
        [text for _, _, text in pages], stopwords="en", stemmer=stemmer, show_progress=False
    )
    model = bm25s.BM25()
    model.index(tokens, show_progress=False)
    index_s = time.perf_counter() - started
    k = min(max(KS), len(pages))
    for q in questions:
        query = bm25s.tokenize(q.question, stopwords="en", stemmer=stemmer, show_progress=False)
        results, _ = model.retrieve(query, k=k, show_progress=False)
        ranked.found["bm25_pages"][q.id] = [
            (pages[i][0], frozenset([pages[i][1]])) for i in results[0].tolist()
        ]
    return {"index_s": round(index_s, 3), "pages": len(pages), "stemmer": stemmer_name}


def _stemmer() -> tuple[Any, str | None]:
    try:
        import Stemmer
    except ImportError:
        return None, None
    return Stemmer.Stemmer("english"), "PyStemmer english"


async def run_scope(
    docs: list[Path], questions: Sequence[Question], out: Path, ranked: Ranked
) -> dict[str, Any]:
    """One index over ``docs`` (ralph-tui's and BM25's), the questions asked of both."""
    settings = settings_of(out, "auto")
    started = time.perf_counter()
    corpus = read_searchable(docs, settings)
    convert_s = time.perf_counter() - started
    figures: dict[str, Any] = {"convert_s": round(convert_s, 2)}
    problems = check_pages(questions, corpus)
    if problems:
        figures["page_check_problems"] = problems
    figures["ralph"] = await ask_ralph(corpus, questions, out, ranked)
    figures["bm25"] = ask_bm25(corpus, questions, ranked)
    return figures


def cold_index(path: Path) -> dict[str, Any]:
    """Convert and index one PDF with nothing cached (run in a child: its own process)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        settings = settings_of(out, "auto")
        started = time.perf_counter()
        corpus = read_searchable([path], settings)
        converted = time.perf_counter()
        index = asyncio.run(open_corpus_index(corpus, settings))
        done = time.perf_counter()
    return {
        "convert_s": round(converted - started, 2),
        "index_s": round(done - converted, 2),
        "total_s": round(done - started, 2),
        "stages_ms": {k: round(v) for k, v in index.figures.ms.items()},
    }


def timing(path: Path, runs: int) -> dict[str, Any]:
    """Cold index of ``path`` by ralph-tui against ``pdftotext`` on it, ``runs`` times each,
    taken in turns so that both meet the same load on a shared machine; medians."""
    pdftotext = shutil.which("pdftotext")
    figures: dict[str, Any] = {"file": path.name, "runs": runs}
    colds: list[dict[str, Any]] = []
    plain: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            child = subprocess.run(
                [sys.executable, __file__, "--cold-one", str(path)],
                capture_output=True,
                text=True,
                check=False,
            )
            if child.returncode != 0:
                figures["ralph_error"] = child.stderr.strip().splitlines()[-1:]
                return figures
            colds.append(json.loads(child.stdout.strip().splitlines()[-1]))
            if pdftotext is not None:
                began = time.perf_counter()
                subprocess.run([pdftotext, str(path), str(Path(folder) / "out.txt")], check=True)
                plain.append(time.perf_counter() - began)
    for name in ("convert_s", "index_s", "total_s"):
        figures[f"ralph_{name}"] = round(statistics.median(c[name] for c in colds), 2)
    figures["ralph_runs_total_s"] = [c["total_s"] for c in colds]
    figures["ralph_stages_ms_last"] = colds[-1]["stages_ms"]
    if pdftotext is None:
        figures["pdftotext"] = "absent: install poppler-utils (apt-get install poppler-utils)"
        return figures
    figures["pdftotext_s"] = round(statistics.median(plain), 3)
    figures["pdftotext_runs_s"] = [round(t, 3) for t in plain]
    figures["ratio_total_to_pdftotext"] = round(
        figures["ralph_total_s"] / figures["pdftotext_s"], 2
    )
    figures["ratio_convert_to_pdftotext"] = round(
        figures["ralph_convert_s"] / figures["pdftotext_s"], 2
    )
    return figures


def misses(
    questions: Sequence[Question], found: dict[str, Found], limit: int
) -> list[dict[str, Any]]:
    """The first ``limit`` questions a method missed at 5, with what it returned instead."""
    out = []
    for q in questions:
        if q.id in found and not hit_at(found[q.id], q, 5):
            out.append(
                {
                    "id": q.id,
                    "kind": q.kind,
                    "pages": sorted(q.pages),
                    "got": [f"{doc} {sorted(pages)}" for doc, pages in found[q.id][:5]],
                }
            )
        if len(out) >= limit:
            break
    return out


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    questions = load_questions(args.questions)
    folder = Path(args.folder)
    docs = sorted({q.doc for q in questions})
    if args.doc:
        docs = [d for d in docs if d == args.doc or Path(d).stem == args.doc]
        if not docs:
            raise SystemExit(f"no questions for {args.doc}: name a filing of {args.questions}")
    questions = [q for q in questions if q.doc in docs]
    result: dict[str, Any] = {
        "questions": len(questions),
        "documents": docs,
        "by_kind": {kind: sum(q.kind == kind for q in questions) for kind in KINDS},
        "ks": list(KS),
        "methods": {
            "ralph_*": "ralph-tui's search, keyless defaults (offline embedder, rerank auto)",
            "ralph_norerank_*": "the same with --rerank off (fusion alone)",
            "*_label_page": "a passage's page is the page search labels it with (as reported)",
            "*_first_page": "a passage's page is the page of its first character",
            "*_touched_pages": "a passage counts on every page its span overlaps",
            "bm25_pages": "bm25s over whole pages (stopwords en, stemmer as stated)",
        },
    }
    per_doc = Ranked()
    with tempfile.TemporaryDirectory() as folder_out:
        out = Path(folder_out)
        figures = {}
        for doc in docs:
            asked = [q for q in questions if q.doc == doc]
            figures[doc] = await run_scope([folder / doc], asked, out / Path(doc).stem, per_doc)
            print(f"{doc}: {json.dumps(figures[doc])}", file=sys.stderr)
        result["per_document"] = {
            "scores": {m: scores(questions, per_doc.found[m]) for m in METHODS},
            "query_p50_ms": round(statistics.median(per_doc.latency_ms), 1),
            "query_max_ms": round(max(per_doc.latency_ms), 1),
            "documents": figures,
        }
        if not args.no_folder and len(docs) > 1:
            whole = Ranked()
            started = time.perf_counter()
            scope = await run_scope([folder / d for d in docs], questions, out / "all", whole)
            scope["wall_s"] = round(time.perf_counter() - started, 1)
            result["folder"] = {
                "scores": {m: scores(questions, whole.found[m]) for m in METHODS},
                "query_p50_ms": round(statistics.median(whole.latency_ms), 1),
                "query_max_ms": round(max(whole.latency_ms), 1),
                "index": scope,
            }
            if args.misses:
                result["folder"]["misses_at_5"] = {
                    m: misses(questions, whole.found[m], args.misses)
                    for m in ("ralph_label_page", "bm25_pages")
                }
        if args.misses:
            result["per_document"]["misses_at_5"] = {
                m: misses(questions, per_doc.found[m], args.misses)
                for m in ("ralph_label_page", "ralph_touched_pages", "bm25_pages")
            }
    if not args.no_timing:
        largest = max(docs, key=lambda d: (folder / d).stat().st_size)
        pages = max(((d, figures[d]["bm25"]["pages"]) for d in docs), key=lambda item: item[1])[0]
        result["cold_index"] = timing(folder / pages, args.timing_runs)
        result["cold_index"]["chosen_as"] = "most pages" + (
            " (also the largest file)" if pages == largest else ""
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--doc", help="one filing only (its file name or stem)")
    parser.add_argument("--no-folder", action="store_true", help="skip the one-index folder run")
    parser.add_argument("--no-timing", action="store_true", help="skip the cold-index timing")
    parser.add_argument("--timing-runs", type=int, default=3, help="cold-index runs (median)")
    parser.add_argument("--misses", type=int, default=0, help="list up to N misses at 5")
    parser.add_argument("--cold-one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold_one is not None:
        print(json.dumps(cold_index(args.cold_one)))
        return
    result = asyncio.run(main_async(args))
    print(table(result), file=sys.stderr)
    print(json.dumps(result, indent=2))


def table(result: dict[str, Any]) -> str:
    """The scores as a Markdown table (to stderr, for a person; the JSON is the record)."""
    head = " | ".join(f"hit@{k}" for k in KS) + " | " + " | ".join(f"{k} @5" for k in KINDS)
    lines = [f"| scope | method | {head} |", "|" + " --- |" * (2 + len(KS) + len(KINDS))]
    for scope in ("per_document", "folder"):
        for method, by in result.get(scope, {}).get("scores", {}).items():
            cells = [by["all"][f"hit@{k}"] for k in KS] + [by[kind]["hit@5"] for kind in KINDS]
            lines.append(f"| {scope} | {method} | " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
