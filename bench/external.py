"""External docs: a generated 200-page site on 127.0.0.1, crawled to depth 2; prints one
JSON object.

Cold: crawl + normalise (the documents layer's HTML converter) + index the passages for
retrieval (BM25 and the offline embedder's vectors), 4 fetches at once. Baseline in the same
run: the same pages fetched one after another with no processing. Warm: the same crawl again
within the TTL, with the number of HTTP requests the server saw (goal: none, in <= 0.5 s).

    .venv/bin/python bench/external.py [--pages 200]

The site is served by ``python -m http.server`` in a child process, so serving does not
compete with the crawler for the GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from ralph_tui.config import load_settings
from ralph_tui.events import BaseEvent
from ralph_tui.external.run import gather_external
from ralph_tui.retrieval.embedders import WordVectorEmbedder
from ralph_tui.retrieval.sources import TextSource

WORDS = """token request client server header limit retry cache page section endpoint error
scope grant refresh access secret rotate webhook payload signature version field record query
filter sort cursor batch upload download stream socket timeout quota""".split()  # noqa: SIM905


def write_site(root: Path, pages: int, fanout: int, seed: int) -> int:
    """An index page, ``fanout`` section pages, each linking ``fanout`` leaf pages: about
    ``pages`` pages at depth 2. Each page has a few paragraphs of generated prose."""
    rng = random.Random(seed)
    names = [f"p{i:04d}.html" for i in range(pages)]
    sections, leaves = names[1 : 1 + fanout], names[1 + fanout :]
    links = {names[0]: sections}
    for number, section in enumerate(sections):
        links[section] = leaves[number::fanout]
    for name in names:
        paragraphs = "".join(
            "<p>" + " ".join(rng.choice(WORDS) for _ in range(80)) + ".</p>" for _ in range(6)
        )
        anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links.get(name, []))
        (root / name).write_text(
            f"<!doctype html><html><head><title>Page {name}</title></head><body><main>"
            f"<h1>Page {name}</h1>{paragraphs}<ul>{anchors}</ul></main></body></html>"
        )
    return len(names)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def fetch_sequentially(base: str, names: list[str]) -> float:
    async with httpx2.AsyncClient() as client:
        started = time.perf_counter()
        for name in names:
            (await client.get(f"{base}/{name}")).raise_for_status()
        return time.perf_counter() - started


async def crawl_and_index(settings_dir: Path, url: str, pages: int) -> dict[str, float | int]:
    settings = load_settings(
        {"out_dir": settings_dir, "crawl_depth": 2, "external_max_pages": pages},
        env_file=Path("/nonexistent"),
    )
    events: list[BaseEvent] = []
    started = time.perf_counter()
    docs = await gather_external(settings, [url], events.append)
    crawled = time.perf_counter() - started
    source = await TextSource.build("external", docs.passages, WordVectorEmbedder())
    total = time.perf_counter() - started
    return {
        "seconds": round(total, 3),
        "crawl_s": round(crawled, 3),
        "index_s": round(total - crawled, 3),
        "pages": len(docs.pages),
        "passages": len(source),
        "requests": docs.requests,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    fanout = 14
    WordVectorEmbedder()  # the model loads once, before any timing
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "site"
        root.mkdir()
        count = write_site(root, args.pages, fanout, args.seed)
        port = free_port()
        log = Path(folder) / "server.log"
        with log.open("w") as sink:
            server = subprocess.Popen(
                [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                cwd=root,
                stdout=sink,
                stderr=sink,
            )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    httpx2.get(base + "/p0000.html").raise_for_status()
                    break
                except httpx2.HTTPError:
                    time.sleep(0.05)
            names = sorted(path.name for path in root.iterdir())
            baseline = asyncio.run(fetch_sequentially(base, names))
            out = Path(folder) / "out"
            cold = asyncio.run(crawl_and_index(out, base + "/p0000.html", count))
            seen = log.read_text().count('"GET ')
            warm = asyncio.run(crawl_and_index(out, base + "/p0000.html", count))
            warm["server_requests"] = log.read_text().count('"GET ') - seen
        finally:
            server.terminate()
            server.wait()
    print(
        json.dumps(
            {
                "site_pages": count,
                "cold": cold,
                "warm": warm,
                "baseline_sequential_fetch_s": round(baseline, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
