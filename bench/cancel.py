"""How long a cancelled run takes to stop; prints one JSON object.

Two places a run spends its time: waiting on the model (a request that takes ``--slow``
seconds) and inside a sandbox cell (``time.sleep`` of ``--slow`` seconds). For each, the
run is cancelled half a second in, and the time from cancel to ``execute_run`` returning
(session recorded as cancelled) is measured. The baseline beside it is what stopping at the
next phase boundary costs: the rest of that request or cell.

    .venv/bin/python bench/cancel.py [--runs 5] [--slow 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, UsageUpdated
from ralph_tui.loops.runner import RunRequest, execute_run

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
CANCEL_AFTER_S = 0.5
CLAUDE = "anthropic:claude-sonnet-4-6"


def tool_reply(action: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": "toolu_1", "name": "submit_output", "input": action}
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [block],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }


async def one_run(where: str, slow_s: float, out: Path) -> float:
    """Seconds from cancel to the run's return."""
    code = f"import time\ntime.sleep({slow_s})" if where == "cell" else "print(len(context))"
    requests = 0

    async def handle(_request: httpx2.Request) -> httpx2.Response:
        nonlocal requests
        requests += 1
        if where == "model" and requests > 1:
            await asyncio.sleep(slow_s)
        return httpx2.Response(200, json=tool_reply({"action": {"code": code}}))

    cancel = asyncio.Event()
    cancelled_at = 0.0

    def fire() -> None:
        nonlocal cancelled_at
        cancelled_at = time.perf_counter()
        cancel.set()

    def on_event(event: BaseEvent) -> None:
        if isinstance(event, UsageUpdated) and event.calls == 1:
            asyncio.get_running_loop().call_later(CANCEL_AFTER_S, fire)

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        anthropic_api_key="sk-ant-bench",
        anthropic_base_url="https://anthropic.bench",
        generate_model=CLAUDE,
        validate_model=CLAUDE,
        sub_model=CLAUDE,
        out_dir=out,
        cell_timeout_s=slow_s * 2,
    )
    outcome = await execute_run(
        RunRequest(mode="qa", query="q", doc_path=SAMPLE, settings=settings),
        on_event=on_event,
        cancel=cancel,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle)),
    )
    stopped = time.perf_counter() - cancelled_at
    assert outcome.status == "cancelled", outcome
    return stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--slow", type=float, default=10.0, help="seconds a request/cell takes")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="ralph-cancel-") as tmp:
        for where in ("model", "cell"):
            times = [
                asyncio.run(one_run(where, args.slow, Path(tmp) / f"{where}{i}"))
                for i in range(args.runs)
            ]
            results[where] = {
                "cancel_to_stop_median_s": round(statistics.median(times), 3),
                "cancel_to_stop_max_s": round(max(times), 3),
                "baseline_next_phase_boundary_s": round(args.slow - CANCEL_AFTER_S, 3),
                "runs": args.runs,
            }
    print(json.dumps({"slow_s": args.slow, "results": results}, indent=2))


if __name__ == "__main__":
    main()
