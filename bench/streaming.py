"""How soon a streamed model turn becomes visible in the app, and how many partial-turn
events it costs; prints one JSON object.

A scripted Anthropic server streams the worker's first turn (a code cell of ``--tokens``
argument deltas) at ``--rate`` deltas a second; the app (headless, ``App.run_test``) runs
the real loop against it. Measured per run:

- ``first_byte_to_visible_s``: from the server sending its first byte to the Sandbox pane
  holding the first code being written (or, without streaming, the first cell), noted by
  the pane itself as it takes the text; the screen paints it at its next refresh;
- the partial-turn events the app received while the turn streamed, and the most in any
  one-second window (at most ``LEADING_PARTIALS`` plus one per ``PARTIAL_INTERVAL_S``).

The baseline in the same run is the same turn with ``--no-stream``: the first thing the app
can show is the whole cell, once the server has generated all of it. Figures are medians of
``--runs`` runs.

    .venv/bin/python bench/streaming.py [--runs 5] [--tokens 2000] [--rate 500]
    .venv/bin/python bench/streaming.py --real-url http://127.0.0.1:8011/v1 --model smollm2
    .venv/bin/python bench/streaming.py --real-url URL --provider anthropic --key KEY --model M
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, Emit, ModelTurnPartial
from ralph_tui.llm.streaming import LEADING_PARTIALS, PARTIAL_INTERVAL_S
from ralph_tui.llm.types import ChatMessage, PartialTurn, ToolDefinition
from ralph_tui.loops.runner import RunOutcome, RunRequest, execute_run
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.sandbox_pane import SandboxPane
from tests.llm.llm_wire import anthropic_events, anthropic_message, sse_bytes

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
CLAUDE = "anthropic:claude-sonnet-4-6"
TOKEN_CHARS = 4
"""Characters per streamed delta: about one token of code."""


def scripted_turn(tokens: int) -> dict[str, Any]:
    """The worker's turn: a cell of about ``tokens`` tokens of code."""
    lines: list[str] = []
    size = 0
    while size < tokens * TOKEN_CHARS:
        line = f"row_{len(lines):04d} = context.count('filter')\n"
        lines.append(line)
        size += len(line)
    code = "".join(lines)[: tokens * TOKEN_CHARS]
    block: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "submit_output"}
    block["input"] = {"action": {"code": code}}
    return anthropic_message([block], stop_reason="tool_use", output_tokens=tokens)


class PacedStream(httpx2.AsyncByteStream):
    """Frames sent at a fixed rate, noting when the first byte went out."""

    def __init__(self, frames: list[bytes], rate: float) -> None:
        self.frames, self.rate = frames, rate
        self.first_byte_at: float | None = None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        started = time.perf_counter()
        for index, frame in enumerate(self.frames):
            wait = started + index / self.rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            if self.first_byte_at is None:
                self.first_byte_at = time.perf_counter()
            yield frame


class ScriptedServer:
    """The first request gets the turn (streamed at ``rate``, or whole after the time the
    stream would take); later ones a 400 that ends the run."""

    def __init__(self, tokens: int, rate: float) -> None:
        self.turn, self.rate, self.tokens = scripted_turn(tokens), rate, tokens
        self.requested_at: float | None = None
        self.stream: PacedStream | None = None

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if self.requested_at is not None:
            error = {"type": "invalid_request_error", "message": "the benchmark's turn is over"}
            body = {"type": "error", "error": error}
            return httpx2.Response(400, json=body)
        self.requested_at = time.perf_counter()
        if json.loads(request.content).get("stream"):
            events = anthropic_events(self.turn)
            self.stream = PacedStream([sse_bytes([e]) for e in events], self.rate)
            headers = {"content-type": "text/event-stream"}
            return httpx2.Response(200, headers=headers, stream=self.stream)
        await asyncio.sleep(self.tokens / self.rate)
        return httpx2.Response(200, json=self.turn)


async def one_run(stream: bool, tokens: int, rate: float, out: Path) -> dict[str, float]:
    """One run in the app: when the first code became visible, and the partial events."""
    server = ScriptedServer(tokens, rate)
    partial_times: list[float] = []

    async def runner(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        def counted(event: BaseEvent) -> None:
            if isinstance(event, ModelTurnPartial):
                partial_times.append(time.perf_counter())
            emit(event)

        transport = httpx2.MockTransport(server.handle)
        return await execute_run(
            request,
            on_event=counted,
            cancel=cancel,
            http_client=httpx2.AsyncClient(transport=transport),
        )

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        anthropic_api_key="sk-ant-bench",
        anthropic_base_url="https://anthropic.bench",
        generate_model=CLAUDE,
        validate_model=CLAUDE,
        sub_model=CLAUDE,
        llm_max_retries=0,
        out_dir=out,
        stream=stream,
    )
    app = RalphApp(settings, runner=runner, config_path=out / "config")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="How often are the filters backwashed?", doc=SAMPLE)
        sandbox = screen.monitor.sandbox
        visible = VisibleAt(sandbox)
        await pilot.press("ctrl+r")
        while screen.running:
            await pilot.pause(0.05)
    visible_at = visible.at
    assert visible_at is not None, "the sandbox pane never showed the cell"
    assert server.requested_at is not None
    started = server.stream.first_byte_at if server.stream else server.requested_at
    assert started is not None
    return {
        "first_byte_to_visible_s": visible_at - started,
        "first_byte_to_first_event_s": (partial_times[0] if partial_times else visible_at)
        - started,
        "request_to_visible_s": visible_at - server.requested_at,
        "partial_events": len(partial_times),
        "partial_events_max_per_s": max_per_second(partial_times),
    }


class VisibleAt:
    """When ``sandbox`` first held code: the code being written, or a cell that ran. It
    watches the pane's own updates, so the figure does not wait on a polling loop."""

    def __init__(self, sandbox: SandboxPane) -> None:
        self.at: float | None = None
        show_writing, flush = sandbox.show_writing, sandbox.flush

        def watched_show_writing(turn: ModelTurnPartial | None) -> None:
            show_writing(turn)
            self.note(sandbox.has_class("-writing"))

        def watched_flush() -> None:
            flush()
            self.note(bool(sandbox.entries))

        sandbox.show_writing = watched_show_writing  # type: ignore[method-assign]
        sandbox.flush = watched_flush  # type: ignore[method-assign]

    def note(self, shown: bool) -> None:
        if shown and self.at is None:
            self.at = time.perf_counter()


def max_per_second(times: list[float]) -> int:
    """The most events in any one-second window."""
    most, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}


async def real_server(
    base_url: str, model: str, max_tokens: int, provider: str, key: str
) -> dict[str, Any]:
    """One streamed and one whole turn against a real server of ``provider``'s API."""
    from ralph_tui.llm.anthropic_client import AnthropicClient
    from ralph_tui.llm.factory import LOCAL_TIMEOUT_S
    from ralph_tui.llm.openai_client import OpenAIClient

    tool = ToolDefinition(
        name="run_code",
        description="Run Python code.",
        parameters={"type": "object", "properties": {"code": {"type": "string"}}},
    )
    ask = [ChatMessage(role="user", content="Write Python that prints the squares of 1 to 20.")]
    figures: dict[str, Any] = {}
    for stream in (True, False):
        kind = AnthropicClient if provider == "anthropic" else OpenAIClient
        client = kind(
            model, api_key=key, base_url=base_url, stream=stream, timeout_s=LOCAL_TIMEOUT_S
        )
        seen: list[tuple[float, PartialTurn]] = []

        def note(turn: PartialTurn, seen: list[tuple[float, PartialTurn]] = seen) -> None:
            seen.append((time.perf_counter(), turn))

        started = time.perf_counter()
        completion = await client.chat(ask, tools=[tool], max_tokens=max_tokens, on_partial=note)
        took = time.perf_counter() - started
        await client.aclose()
        figures["streamed" if stream else "whole"] = {
            "first_visible_s": round(seen[0][0] - started, 3) if seen else round(took, 3),
            "first_token_s": round(seen[0][1].first_token_s, 3) if seen else None,
            "turn_s": round(took, 3),
            "output_tokens": completion.usage.output_tokens,
            "partial_events": len(seen),
            "partial_events_max_per_s": max_per_second([at for at, _ in seen]),
            "tool_calls": len(completion.tool_calls),
            "text_chars": len(completion.text),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=500.0, help="deltas per second")
    parser.add_argument("--real-url", help="an OpenAI-compatible server to measure instead")
    parser.add_argument("--model", default="local", help="the real server's model")
    parser.add_argument("--max-tokens", type=int, default=64, help="the real server's turn")
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--key", default="unused", help="the real server's key")
    args = parser.parse_args()
    if args.real_url:
        figures = asyncio.run(
            real_server(args.real_url, args.model, args.max_tokens, args.provider, args.key)
        )
        print(json.dumps({"server": args.real_url, "model": args.model, **figures}, indent=2))
        return
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ralph-stream-") as tmp:
        for stream in (True, False):
            runs = [
                asyncio.run(one_run(stream, args.tokens, args.rate, Path(tmp) / f"{stream}{i}"))
                for i in range(args.runs)
            ]
            results["streamed" if stream else "whole (--no-stream)"] = medians(runs)
    streamed = results["streamed"]
    print(
        json.dumps(
            {
                "tokens": args.tokens,
                "rate_per_s": args.rate,
                "stream_s": round(args.tokens / args.rate, 2),
                "runs": args.runs,
                "partial_interval_s": PARTIAL_INTERVAL_S,
                "results": results,
                "first_visible_within_0_2_s": streamed["first_byte_to_visible_s"] <= 0.2,
                "event_rate_bounded": streamed["partial_events_max_per_s"]
                <= LEADING_PARTIALS + 1 / PARTIAL_INTERVAL_S + 1,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
