"""The sub-call cache: what retries pay for their sub-calls; prints one JSON object.

A four-iteration QA session through both real SDKs against a scripted server at the
network boundary: the worker (Anthropic wire format) runs code in the real sandbox that asks
``--calls`` sub-questions with ``llm_query`` over slices of the document, then answers; the
judge (OpenAI wire format) rejects iterations 1-3 and passes iteration 4. On each retry the
worker asks ``--repeat`` of its sub-questions again, word for word over the same slices, and
the rest anew. The sub-model (OpenAI wire format) answers each after ``--latency`` seconds,
with a fresh random token in every answer, as a sampling model would, and bills input
tokens by prompt length.

Measured, each as the median of ``--runs`` sessions run in turns with the baseline (the
same session with ``--subcall-cache off``) in the same run:

- billed sub-call tokens of iterations 2-4, counted by the server as it answers;
- wall time of iterations 2-4 (``iteration_started`` to the last ``iteration_finished``).

Goal: billed tokens with the cache <= 0.35 x without it, and the wall time lower (how much
lower depends on how much of an iteration the sub-calls are: ``--latency`` sets that).

    PYTHONPATH=. .venv/bin/python bench/subcall_cache.py [--runs 5] [--calls 10] [--repeat 0.7]
        [--latency 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, IterationFinished, IterationStarted, SubQuery
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.llm.llm_wire import openai_completion
from tests.loops.test_sdk_run import judge_reply, worker_reply

ITERATIONS = 4
SECTIONS = 12
QUOTES = [
    "Section 1. The reservoir holds two days of supply for the whole district.",
    "Section 2. Filters are backwashed every 48 hours by the night shift.",
    "Section 3. Alarms escalate to the duty engineer after 10 minutes.",
]
ANSWER = "- Two days of supply.\n- Filters every 48 hours.\n- Alarms after 10 minutes."


def document() -> str:
    """Twelve sections of plant procedure, the first three quoted by the answer."""
    filler = " Operators log every reading in the shift book and sign it at handover."
    sections = [*QUOTES, *(f"Section {n}. Routine checks of unit {n}." for n in range(4, 13))]
    return "\n\n".join(section + filler * 12 for section in sections)


def worker_code(iteration: int, calls: int, repeated: int) -> str:
    """Iteration ``iteration``'s code: ``repeated`` sub-questions every iteration asks the
    same, and the rest its own, one ``llm_query`` after another as exploring code does."""
    return (
        f"size = len(context) // {SECTIONS}\n"
        "asks = [(f'What does this part say about upkeep? (part {k})', k)\n"
        f"        for k in range({repeated})]\n"
        f"asks += [(f'Attempt {iteration}: does this part back the judge issue? (part {{k}})', k)\n"
        f"         for k in range({repeated}, {calls})]\n"
        "notes = [llm_query(q, context[k * size:(k + 1) * size]) for q, k in asks]\n"
        "print(len(notes), notes[0][:60])"
    )


class ScriptedServer:
    """Both providers' APIs: the worker's turns, the judge's verdicts, the sub-model's
    answers (after ``latency_s``), and the sub-call tokens billed in each iteration."""

    def __init__(self, calls: int, repeated: int, latency_s: float) -> None:
        self.calls, self.repeated, self.latency_s = calls, repeated, latency_s
        self.worker_turns = 0
        self.iteration = 0
        self.billed: dict[int, int] = defaultdict(int)
        self.sub_requests: dict[int, int] = defaultdict(int)

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if request.url.host == "anthropic.test":
            return httpx2.Response(200, json=self.worker_turn())
        if body.get("tools"):
            passed = self.iteration == ITERATIONS
            lines = ["supported"] * len(QUOTES) if passed else ["supported", "partly_supported"]
            issues = [] if passed else ["Bullet 2 is vague."]
            return httpx2.Response(200, json=judge_reply(lines, issues, missing="the schedule"))
        await asyncio.sleep(self.latency_s)
        prompt = body["messages"][-1]["content"]
        prompt_tokens, out_tokens = len(prompt) // 4 + 1, 60
        self.billed[self.iteration] += prompt_tokens + out_tokens
        self.sub_requests[self.iteration] += 1
        note = f"Upkeep noted (sample {random.random():.6f})."
        return httpx2.Response(
            200,
            json=openai_completion(
                {"content": note}, prompt_tokens=prompt_tokens, completion_tokens=out_tokens
            ),
        )

    def worker_turn(self) -> dict[str, Any]:
        self.worker_turns += 1
        if self.worker_turns % 2:
            self.iteration += 1
            code = worker_code(self.iteration, self.calls, self.repeated)
            return worker_reply({"code": code, "resultReady": False})
        links = [[n] for n in range(1, len(QUOTES) + 1)]  # answer line n rests on quote n
        answer = {"answer": ANSWER, "evidence": QUOTES, "lineQuotes": links, "resultReady": True}
        return worker_reply(answer)


async def one_session(mode: str, args: argparse.Namespace, doc: Path) -> dict[str, Any]:
    """One session with ``--subcall-cache mode``: its retries' billed tokens and time."""
    repeated = round(args.calls * args.repeat)
    server = ScriptedServer(args.calls, repeated, args.latency)
    events: list[BaseEvent] = []
    with tempfile.TemporaryDirectory() as out:
        settings = Settings(
            _env_file=None,
            anthropic_api_key="sk-ant-bench",
            openai_api_key="sk-bench",
            anthropic_base_url="https://anthropic.test",
            openai_base_url="https://openai.test/v1",
            sub_model="openai:gpt-4o-mini",
            out_dir=Path(out),
            max_iters=ITERATIONS,
            subcall_cache=mode,
            worker_max_llm_calls=max(60, args.calls),
            stream=False,  # the scripted server answers whole: what is measured is sub-calls
        )
        outcome = await execute_run(
            RunRequest(mode="qa", query="How is the plant kept?", doc_path=doc, settings=settings),
            on_event=events.append,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle)),
        )
    if outcome.status != "passed" or outcome.iterations != ITERATIONS:
        raise SystemExit(f"the scripted session ended {outcome.status}: {outcome.error}")
    started = {e.iteration: e.ts for e in events if isinstance(e, IterationStarted)}
    finished = {e.iteration: e.ts for e in events if isinstance(e, IterationFinished)}
    retries = range(2, ITERATIONS + 1)
    hits = sum(1 for e in events if isinstance(e, SubQuery) and e.cached)
    usage = outcome.usage
    return {
        "retry_tokens": sum(server.billed[i] for i in retries),
        "retry_requests": sum(server.sub_requests[i] for i in retries),
        "retry_s": finished[ITERATIONS] - started[2],
        "first_tokens": server.billed[1],
        "hits": hits,
        "saved_calls": usage.saved_calls,
        "saved_tokens": usage.saved_input_tokens + usage.saved_output_tokens,
        "saved_cost_usd": round(usage.saved_cost_usd, 6),
    }


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(run[key] for run in runs))


async def main(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        doc = Path(folder) / "plant.md"
        doc.write_text(document(), encoding="utf-8")
        cached: list[dict[str, Any]] = []
        baseline: list[dict[str, Any]] = []
        for _ in range(args.runs):  # in turns, so a busy moment hits both alike
            baseline.append(await one_session("off", args, doc))
            cached.append(await one_session("session", args, doc))
    tokens = median_of(cached, "retry_tokens") / median_of(baseline, "retry_tokens")
    seconds = median_of(cached, "retry_s") / median_of(baseline, "retry_s")
    return {
        "runs": args.runs,
        "sub_calls_per_iteration": args.calls,
        "repeated_share": args.repeat,
        "sub_call_latency_s": args.latency,
        "baseline_off": {
            "retry_billed_tokens": median_of(baseline, "retry_tokens"),
            "retry_requests": median_of(baseline, "retry_requests"),
            "retry_wall_s": round(median_of(baseline, "retry_s"), 3),
        },
        "cache_session": {
            "retry_billed_tokens": median_of(cached, "retry_tokens"),
            "retry_requests": median_of(cached, "retry_requests"),
            "retry_wall_s": round(median_of(cached, "retry_s"), 3),
            "hits": median_of(cached, "hits"),
            "saved_calls": median_of(cached, "saved_calls"),
            "saved_tokens": median_of(cached, "saved_tokens"),
            "saved_cost_usd": median_of(cached, "saved_cost_usd"),
        },
        "retry_tokens_ratio": round(tokens, 3),
        "retry_wall_ratio": round(seconds, 3),
        "goal": "retry_tokens_ratio <= 0.35 and retry_wall_ratio < 1",
        "met": tokens <= 0.35 and seconds < 1,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=float, default=0.7)
    parser.add_argument("--latency", type=float, default=0.1)
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
