"""Whether the MCP server's memory stays flat over many runs; prints one JSON object.

``python -m ralph_tui mcp --http 127.0.0.1:PORT`` is started as a subprocess (loopback
only) with one root holding the sample document. Clients of the MCP SDK's own
streamable-HTTP client then call ``ask_documents`` with the offline provider, ``--at-once``
of them at a time, each run in a session of its own (a client connects, asks, goes), as a
team's agents would. After ``--warmup`` runs the server's resident memory (RSS, from
``/proc``) is the baseline; it is read again after every hundred runs, each time with no run
in flight (what a run holds while it runs is not what it leaves behind). ``--runs`` and
``--max-seconds`` bound the count and the time.

Goal: after warm-up the RSS stays within a few MB of the baseline (no growth per run).

Measured (2 cores, 500 runs, 8 clients at a time, the server's --max-runs 4): before, the
RSS grew from 616 MB after the warm-up to 685 MB (177 KB a run: each offline embedder made
its own tokenizer, which kept most of a megabyte) and the soak took 727 s; after, 210 MB
then 217, 206, 211, 208 MB at each hundred, in 190 s.

    PYTHONPATH=. .venv/bin/python bench/mcp_soak.py [--runs 500] [--warmup 50] [--at-once 8]
        [--max-runs 4] [--max-seconds 900]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "ralph_tui" / "data" / "sample_document.md"
ARGUMENTS = {
    "question": "How often are the filters backwashed?",
    "paths": [SAMPLE.name],
    "settings": {"provider": "offline", "max_iters": 2},
}


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for process {pid}")


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
    return port


def start_server(folder: Path, port: int, max_runs: int) -> subprocess.Popen[bytes]:
    docs = folder / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE, docs / SAMPLE.name)
    command = [
        sys.executable, "-m", "ralph_tui", "mcp", "--http", f"127.0.0.1:{port}",
        "--root", str(docs), "--out", str(folder / "out")
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RALPH_MCP_MAX_RUNS": str(max_runs)}
    server = subprocess.Popen(command, env=env, cwd=folder, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start listening") from None
            time.sleep(0.3)


async def soak(args: argparse.Namespace, url: str, pid: int) -> dict[str, Any]:
    """Runs in batches (the warm-up, then hundreds), ``--at-once`` at a time; between
    batches, with no run in flight, the server's RSS is read."""
    done = errors = 0
    started = time.monotonic()

    async def one(limiter: anyio.CapacityLimiter) -> None:
        nonlocal done, errors
        async with limiter:
            if time.monotonic() - started > args.max_seconds:
                return
            try:
                async with Client(url) as client:
                    result = await client.call_tool("ask_documents", ARGUMENTS)
                errors += bool(result.is_error)
                done += not result.is_error
            except Exception:  # a failed call is counted, the soak goes on
                errors += 1

    async def batch(size: int) -> float:
        limiter = anyio.CapacityLimiter(args.at_once)
        async with anyio.create_task_group() as group:
            for _ in range(size):
                group.start_soon(one, limiter)
        await anyio.sleep(1)  # the last runs' ends settle
        return rss_mb(pid)

    baseline = await batch(args.warmup)
    warm_at = time.monotonic()
    after_hundreds: list[dict[str, float]] = []
    while done + errors < args.runs and time.monotonic() - started < args.max_seconds:
        rss = await batch(min(100, args.runs - done - errors))
        after_hundreds.append({"runs": done + errors, "rss_mb": rss})
    after = done + errors - args.warmup
    last = after_hundreds[-1]["rss_mb"] if after_hundreds else baseline
    return {
        "runs": done,
        "errors": errors,
        "at_once": args.at_once,
        "max_runs": args.max_runs,
        "seconds": round(time.monotonic() - started, 1),
        "seconds_after_warmup": round(time.monotonic() - warm_at, 1),
        "warmup_runs": args.warmup,
        "baseline_rss_mb": baseline,
        "rss_after_each_hundred": after_hundreds,
        "growth_kb_per_run_after_warmup": round((last - baseline) / after * 1024, 1)
        if after > 0
        else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="runs in all (default 500)")
    parser.add_argument(
        "--warmup", type=int, default=50, help="runs before the baseline is read (default 50)"
    )
    parser.add_argument(
        "--at-once", type=int, default=8, help="clients calling at a time (default 8)"
    )
    parser.add_argument(
        "--max-runs", type=int, default=4, help="the server's --max-runs (default 4)"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=900, help="stop starting runs after this long"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ralph-soak-") as folder:
        port = free_port()
        server = start_server(Path(folder), port, args.max_runs)
        try:
            figures = anyio.run(soak, args, f"http://127.0.0.1:{port}/mcp", server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
