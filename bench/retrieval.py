"""Retrieval: recall on a needle suite and speed at scale; prints one JSON object.

Recall (``--sizes``, default 10 KB, 1 MB, 100 MB): twenty facts planted at random places in
real prose (``bench/needles.py``), each asked about in other words than its own. recall@5 of
BM25 scores alone, the lexical leg alone (BM25 with the query's rare terms first), the dense
leg alone and the whole pipeline (fusion, rerank), side by side. Goal: fused >= 0.95 at
every size, never below the better leg by more than 0.02.

Speed (the largest size): indexing cold and warm (from the cache), one query's latency (p50
over the suite's questions), peak RSS of the process that indexes. Baselines in the same
run: ``bm25s`` alone indexing the same chunks (its own tokenizer), and a numpy brute-force
search alone over the same vectors.

    .venv/bin/python bench/retrieval.py [--sizes 10000,1000000,100000000] [--json-only]

Each size runs in a child process, so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from needles import NEEDLES, Needle, haystack, plant

from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.embedders import WordVectorEmbedder
from ralph_tui.retrieval.index import open_index
from ralph_tui.retrieval.lexical import top
from ralph_tui.retrieval.retriever import Retriever, SearchOptions
from ralph_tui.retrieval.sources import DocumentSource

K = 5


def hit(spans: list[tuple[int, int]], needle: tuple[int, int]) -> bool:
    """Whether a passage holds at least half of the needle."""
    start, end = needle
    return any(min(e, end) - max(s, start) >= (end - start) / 2 for s, e in spans)


async def measure(size: int, seed: int) -> dict[str, Any]:
    text, placed = plant(haystack(size, seed), NEEDLES, seed)
    return await measure_text(text, placed)


async def measure_text(
    text: str,
    placed: list[tuple[Needle, int, int]],
    table: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Recall and speed figures of the needles ``placed`` in ``text`` (a corpus with its
    ``table`` of documents and pages, when given)."""
    embedder = WordVectorEmbedder()
    with tempfile.TemporaryDirectory() as folder:
        cache = IndexCache(Path(folder))
        started = time.perf_counter()
        index = await open_index(
            text, chunking=Chunking(), embedder=embedder, cache=cache, table=table
        )
        cold_s = time.perf_counter() - started
        cold_stages = {k: round(v) for k, v in index.figures.ms.items()}
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        started = time.perf_counter()
        index = await open_index(
            text, chunking=Chunking(), embedder=embedder, cache=cache, table=table
        )
        warm_s = time.perf_counter() - started
        assert index.figures.lexical_from_cache and index.figures.vectors_from_cache
        source = DocumentSource(index, table)
        retriever = Retriever([source], embedder, SearchOptions(top_n=15, top_k=K))
        found = {"bm25_only": 0, "lexical": 0, "dense": 0, "fused": 0}
        latencies = []
        for needle, start, end in placed:
            hits = index.lexical.search(needle.question)
            none = np.zeros(0, dtype=np.int64)
            bm25 = top(hits.scores, K) if hits is not None else none
            found["bm25_only"] += hit([index.chunks.span(i) for i in bm25.tolist()], (start, end))
            picked = hits.top(K) if hits is not None else none
            found["lexical"] += hit([index.chunks.span(i) for i in picked.tolist()], (start, end))
            assert source.store is not None
            query = (await embedder.embed([needle.question]))[0]
            dense, _ = source.store.search(query, K)
            found["dense"] += hit([index.chunks.span(i) for i in dense.tolist()], (start, end))
            began = time.perf_counter()
            result = await retriever.search(needle.question)
            latencies.append((time.perf_counter() - began) * 1000)
            spans = [p.info.span for p in result.passages if p.info.span]
            found["fused"] += hit(spans, (start, end))
    figures: dict[str, Any] = {
        "size_chars": len(text),
        "chunks": len(index.chunks),
        "recall_at_5": {leg: count / len(placed) for leg, count in found.items()},
        "index_cold_s": round(cold_s, 3),
        "index_cold_stages_ms": cold_stages,
        "index_warm_s": round(warm_s, 3),
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_max_ms": round(max(latencies), 2),
        "peak_rss_mb": round(rss_mb, 1),
    }
    figures.update(baselines(text, index, embedder))
    return figures


def baselines(text: str, index: Any, embedder: WordVectorEmbedder) -> dict[str, Any]:
    """``bm25s`` alone over the same chunks; numpy brute force over the same vectors."""
    import bm25s

    chunks = index.chunks.texts(text)
    started = time.perf_counter()
    tokens = bm25s.tokenize(chunks, stopwords="en", show_progress=False)
    model = bm25s.BM25()
    model.index(tokens, show_progress=False)
    bm25s_s = time.perf_counter() - started
    vectors = np.ascontiguousarray(index.vectors)
    query = vectors[len(vectors) // 2]
    times = []
    for _ in range(20):
        began = time.perf_counter()
        scores = vectors @ query
        np.argpartition(-scores, min(15, len(scores) - 1))[:15]
        times.append((time.perf_counter() - began) * 1000)
    return {
        "baseline_bm25s_index_s": round(bm25s_s, 3),
        "baseline_numpy_search_p50_ms": round(statistics.median(times), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,1000000,100000000")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(asyncio.run(measure(args.one, args.seed))))
        return
    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        child = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            results[str(size)] = {"error": child.stderr.strip().splitlines()[-1:]}
        else:
            results[str(size)] = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"{size:>11,} chars: {json.dumps(results[str(size)])}", file=sys.stderr)
    print(json.dumps({"k": K, "needles": len(NEEDLES), "sizes": results}, indent=2))


if __name__ == "__main__":
    main()
