"""How close the estimate's expected figure comes to what runs spend; prints one JSON object.

The ``sample`` and ``needle`` suites run item by item, in each inner mode a run can be given,
through the real openai SDK against a scripted server at the network boundary: the offline
baseline plays every role, and the server bills a token per four characters of each request
and of each reply, and says so in the usage it reports, as a provider would count them (the
model is named ``gpt-4o-mini``, so the run's ledger prices it at that model's list price).

For each item, the ratio estimate / spent of the expected total tokens and of the expected
cost, on two bases:

- ``settings``: the estimate made before the item runs, with no past session (what a first
  run is told);
- ``past``: the estimate made with the other items of the same suite and mode as past
  sessions in the index (leave one out: what a later run of the same kind is told).

Goal: every ratio within a factor of 2 (0.5 <= ratio <= 2) on the ``past`` basis, the one the
estimate rests on once there are past sessions; the ``settings`` basis is reported beside it.

    PYTHONPATH=. .venv/bin/python bench/estimate_accuracy.py [--sizes 8k,64k] [--depths 0,0.5,1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, get_args

import httpx2

from ralph_tui.config import Settings
from ralph_tui.config.inner_modes import InnerMode
from ralph_tui.estimates import PastRun, RunEstimate, estimate_run, plan_of
from ralph_tui.evals.needle import DEFAULT_DEPTHS, DEFAULT_SIZES, needle_suite, parse_size
from ralph_tui.evals.sample import sample_suite
from ralph_tui.evals.suite import EvalItem
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.loops.baseline_server import BaselineServer

MODEL = "openai:gpt-4o-mini"


def billed(text: bytes | str) -> int:
    """Tokens of a request or a reply, as the scripted server bills them."""
    return len(text) // 4 + 1


class BillingServer(BaselineServer):
    """The offline baseline behind the Chat Completions wire, billing by size."""

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = await super().handle(request)
        if response.status_code != 200:
            return response
        body = json.loads(response.content)
        reply = json.dumps(body["choices"][0]["message"])
        prompt, completion = billed(request.content), billed(reply)
        body["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        return httpx2.Response(200, json=body)


def settings_for(out: Path, inner: str) -> Settings:
    return Settings(
        _env_file=None, out_dir=out, generate_model=MODEL, validate_model=MODEL,
        openai_api_key="sk-bench", openai_base_url="https://scripted.test/v1",
        embedder="offline", inner=inner,
    )  # fmt: skip


async def run_item(item: EvalItem, settings: Settings) -> dict[str, Any]:
    """Run ``item``; what it spent."""
    server = BillingServer()
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
    request = RunRequest(
        mode=item.mode, query=item.query, doc_path=Path(item.doc), settings=settings
    )
    started = time.perf_counter()
    outcome = await execute_run(request, on_event=lambda _event: None, http_client=client)
    usage = outcome.usage.to_event()
    return {
        "status": outcome.status,
        "iterations": outcome.iterations,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "calls": usage.calls,
        "wall_s": round(time.perf_counter() - started, 2),
    }


def estimate_item(
    item: EvalItem, settings: Settings, doc_chars: int, past: list[PastRun]
) -> RunEstimate:
    plan = plan_of(settings, item.mode, item.query, doc_chars)
    return estimate_run(
        plan, inner=settings.inner, cost_cap_usd=None, token_cap=None,
        past={settings.inner: past} if past else None,
    )  # fmt: skip


def ratios(estimate: RunEstimate, inner: str, spent: dict[str, Any]) -> dict[str, float | None]:
    expected = estimate.of_mode(inner).expected
    cost = spent["cost_usd"]
    return {
        "tokens": round(expected.tokens / (spent["input_tokens"] + spent["output_tokens"]), 3),
        "cost": None
        if expected.cost_usd is None or not cost
        else round(expected.cost_usd / cost, 3),
    }


def suite_items(
    name: str, folder: Path, sizes: tuple[int, ...], depths: tuple[float, ...]
) -> list[EvalItem]:
    return sample_suite() if name == "sample" else needle_suite(folder, sizes, depths)


def run_suite(
    name: str, inner: str, root: Path, sizes: tuple[int, ...], depths: tuple[float, ...]
) -> dict[str, Any]:
    out = root / f"{name}-{inner}"
    settings = settings_for(out, inner)
    items = suite_items(name, root / "docs", sizes, depths)
    rows: list[dict[str, Any]] = []
    refused: list[str] = []
    for item in list(items):
        doc_chars = len(Path(item.doc).read_text(encoding="utf-8"))
        before = estimate_item(item, settings, doc_chars, [])
        if not before.of_mode(inner).fits:  # the run refuses it before any call: nothing to compare
            refused.append(item.id)
            items.remove(item)
            continue
        spent = asyncio.run(run_item(item, settings))
        rows.append(
            {"item": item.id, "doc_chars": doc_chars, "spent": spent,
             "settings": ratios(before, inner, spent)}
        )  # fmt: skip
    for n, (item, row) in enumerate(zip(items, rows, strict=True)):
        others = [
            PastRun(r["doc_chars"], len(i.query), r["spent"]["iterations"],
                    r["spent"]["input_tokens"], r["spent"]["output_tokens"])
            for m, (i, r) in enumerate(zip(items, rows, strict=True)) if m != n
        ]  # fmt: skip
        after = estimate_item(item, settings, row["doc_chars"], others)
        row["past"] = ratios(after, inner, row["spent"])
    return {"suite": name, "inner": inner, "items": rows, "refused": refused, **summary(rows)}


def worst_ratio(values: list[float]) -> float:
    """The ratio farthest from 1, either way."""
    return max(values, key=lambda r: abs(math.log(r)))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for basis in ("settings", "past"):
        for figure in ("tokens", "cost"):
            values = [r[basis][figure] for r in rows if r[basis][figure]]
            if values:
                result[f"{basis}_{figure}"] = {
                    "median": round(statistics.median(values), 3),
                    "worst": worst_ratio(values),
                    "within_2x": f"{sum(0.5 <= v <= 2 for v in values)}/{len(values)}",
                }
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", default="sample,needle")
    parser.add_argument("--inner", default=",".join(get_args(InnerMode)))
    parser.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    parser.add_argument("--depths", default=",".join(str(d) for d in DEFAULT_DEPTHS))
    args = parser.parse_args()
    sizes = tuple(parse_size(s) for s in args.sizes.split(","))
    depths = tuple(float(d) for d in args.depths.split(","))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for suite in args.suites.split(","):
            for inner in args.inner.split(","):
                results.append(run_suite(suite, inner, Path(tmp), sizes, depths))
    every = {
        basis: [r[basis]["tokens"] for s in results for r in s["items"]]
        for basis in ("settings", "past")
    }
    report = {
        "model": MODEL,
        "goal": "every ratio estimate/spent within [0.5, 2] on the past-sessions basis",
        "overall": {
            basis: {
                "median": round(statistics.median(values), 3),
                "worst": worst_ratio(values),
                "within_2x": f"{sum(0.5 <= v <= 2 for v in values)}/{len(values)}",
            }
            for basis, values in every.items()
        },
        "suites": results,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
