"""A model stuck on the output schema: what a failed QA run with default settings spends;
prints one JSON object.

A QA session through the real Anthropic SDK (streamed, as by default) against a scripted
server at the network boundary. The worker's model opens each conversation by running one
cell of code in the real sandbox, then submits its answer the same slightly wrong way every
time: ``evidence`` one string instead of a list of quotes, ``lineQuotes`` missing (the
answer's wording changes from call to call, as a sampling model's does). The server bills
input tokens by the size of each request (one per four characters of its body) and says so
in the usage it reports, so the run's ledger counts what a provider would.

A second model, *two ways*, alternates between two wrong answers (``lineQuotes`` missing,
then ``lineQuotes`` as text): never the same problem twice in a row, so it is never stopped
as stuck and spends every step; what it shows is what each step costs.

Measured, for the code of this tree and for the code of ``--base`` (today's figure: that
commit is exported with ``git archive`` and this same script runs on it, in a subprocess):
the requests, the input tokens the server billed, the input tokens the ledger counted, the
largest request's input tokens, the run's final status and its wall time.

Goal: the input tokens of this tree's run of the stuck model <= 5 % of the base's, with the
same final status (``failed``).

    PYTHONPATH=. .venv/bin/python bench/stuck_schema.py [--base COMMIT] [--no-base]
        [--no-two-ways]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.config import Settings
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import anthropic_message, openai_completion, streamed

BASE = "9174336a499018f28c61321a2d0ee738db018865"
"""The last commit before a stuck agent was stopped: the figure of today."""
DOCUMENT = "\n\n".join(
    f"Section {n}. The reservoir of district {n} holds two days of supply; its filters are "
    f"backwashed every 48 hours and its alarms escalate after 10 minutes." * 3
    for n in range(1, 41)
)
QUESTION = "How is the plant kept?"


def billed(request: httpx2.Request) -> int:
    """Input tokens of a request, as the scripted server bills them."""
    return len(request.content) // 4 + 1


class StuckModel:
    """Both providers' APIs. The generate model runs one cell, then answers the same wrong
    way forever (or, with ``ways`` 2, one of two wrong ways in turn); the validate and sub
    models are never needed (nothing valid to judge)."""

    def __init__(self, ways: int = 1) -> None:
        self.ways = ways
        self.requests = 0
        self.input_tokens = 0
        self.largest = 0
        self.attempts = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        tokens = billed(request)
        self.input_tokens += tokens
        self.largest = max(self.largest, tokens)
        body = json.loads(request.content)
        if request.url.host != "anthropic.test":
            reply = openai_completion({"content": "No."}, prompt_tokens=tokens)
            return streamed(request, httpx2.Response(200, json=reply))
        arguments = self.turn(body)
        reply = anthropic_message(
            [tool_use(arguments)],
            stop_reason="tool_use",
            input_tokens=tokens,
            output_tokens=len(json.dumps(arguments)) // 4 + 1,
        )
        return streamed(request, httpx2.Response(200, json=reply))

    def turn(self, body: dict[str, Any]) -> dict[str, Any]:
        """Code to open a conversation; after that the same invalid output, worded anew."""
        [tool] = body.get("tools") or [{"input_schema": {}}]
        nested = "action" in tool["input_schema"].get("properties", {})
        if nested and len(body["messages"]) == 1:
            return {"action": {"code": "print(context[:300])"}}
        self.attempts += 1
        wrong: dict[str, Any] = {
            "answer": f"- The reservoir holds two days of supply (draft {self.attempts}).\n"
            "- Filters are backwashed every 48 hours.\n- Alarms escalate after 10 minutes.",
            "evidence": "The reservoir of district 1 holds two days of supply",
            "resultReady": True,
        }
        if self.ways == 2 and self.attempts % 2:
            wrong |= {"evidence": [wrong["evidence"]] * 3, "lineQuotes": "1, 1, 1"}
        return {"action": wrong} if nested else wrong


async def one_session(folder: Path, ways: int) -> dict[str, Any]:
    """A QA run with default settings against the stuck model wrong in ``ways`` ways."""
    doc = folder / "plant.md"
    doc.write_text(DOCUMENT, encoding="utf-8")
    model = StuckModel(ways)
    settings = Settings(
        _env_file=None,
        anthropic_api_key="sk-ant-bench",
        openai_api_key="sk-bench",
        anthropic_base_url="https://anthropic.test",
        openai_base_url="https://openai.test/v1",
        out_dir=folder / "out",
    )
    started = time.perf_counter()
    outcome = await execute_run(
        RunRequest(mode="qa", query=QUESTION, doc_path=doc, settings=settings),
        on_event=lambda _event: None,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(model.handle)),
    )
    return {
        "status": outcome.status,
        "iterations": outcome.iterations,
        "requests": model.requests,
        "billed_input_tokens": model.input_tokens,
        "ledger_input_tokens": outcome.usage.input_tokens,
        "largest_request_tokens": model.largest,
        "wall_s": round(time.perf_counter() - started, 2),
    }


def base_sessions(base: str, scenarios: list[int]) -> dict[str, Any]:
    """The same sessions on the code of commit ``base``, in a subprocess."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "base"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", base], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        script = tree / "bench" / "stuck_schema.py"
        script.write_text(Path(__file__).read_text(encoding="utf-8"), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script), "--sessions", ",".join(map(str, scenarios))],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            check=True,
            capture_output=True,
            text=True,
        )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


SCENARIOS = {1: "stuck", 2: "two_ways"}


async def sessions(scenarios: list[int]) -> dict[str, Any]:
    """A session against each scenario's model, by name."""
    results = {}
    for ways in scenarios:
        with tempfile.TemporaryDirectory() as folder:
            results[SCENARIOS[ways]] = await one_session(Path(folder), ways)
    return results


async def main(args: argparse.Namespace) -> dict[str, Any]:
    if args.sessions:
        return await sessions([int(ways) for ways in args.sessions.split(",")])
    scenarios = [1] if args.no_two_ways else [1, 2]
    report: dict[str, Any] = {"now": await sessions(scenarios)}
    if args.no_base:
        return report
    base = base_sessions(args.base, scenarios)
    now_stuck, base_stuck = report["now"]["stuck"], base["stuck"]
    ratio = now_stuck["billed_input_tokens"] / base_stuck["billed_input_tokens"]
    report |= {
        "base": {"commit": args.base, **base},
        "stuck_input_tokens_ratio": round(ratio, 4),
        "goal": "stuck_input_tokens_ratio <= 0.05 and the same final status",
        "met": ratio <= 0.05 and now_stuck["status"] == base_stuck["status"],
    }
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE, help="the commit whose figure is today's")
    parser.add_argument("--no-base", action="store_true", help="measure this tree only")
    parser.add_argument("--no-two-ways", action="store_true", help="the stuck model only")
    parser.add_argument("--sessions", help=argparse.SUPPRESS)
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
