"""How soon a streamed model turn becomes visible in the app, and how many partial-turn
events it costs; prints one JSON object.

A scripted Anthropic server streams the worker's first turn (a code cell of about
``--tokens`` tokens, in argument deltas of a few characters) at ``--rate`` events a second
(``stream_s`` in all); the app (headless, ``App.run_test``) runs the real loop against it.
Measured per run:

- ``first_byte_to_visible_s``: from the server sending its first byte to the Sandbox pane
  holding the first code being written (or, without streaming, the first cell), noted by
  the pane itself as it takes the text; the screen paints it at its next refresh;
- the partial-turn events the app received while the turn streamed, and the most in any
  one-second window (at most ``LEADING_PARTIALS`` plus one per ``PARTIAL_INTERVAL_S``).

The baseline in the same run is the same turn with ``--no-stream``: the first thing the app
can show is the whole cell, once the server has generated all of it.

Then the way a user sees it (``terminal``; ``--no-terminal`` skips it): the real app
(``python -m ralph_tui``) in a tmux pane of 160 x 45, pointed by ``ANTHROPIC_BASE_URL`` at
the same scripted turn served over HTTP on 127.0.0.1, the form filled and the run started
by keys. ``first_byte_to_screen_s``: from the server writing the first byte of its streamed
response to the first code on the pane's screen (``capture-pane`` polled every 2 ms; one
clock, ``time.perf_counter`` in this process). The screen is read again mid-stream and after
the turn (``--screens DIR`` writes them out). Figures are medians of ``--runs`` runs.

    .venv/bin/python bench/streaming.py [--runs 5] [--tokens 2000] [--rate 500] [--screens DIR]
    .venv/bin/python bench/streaming.py --real-url http://127.0.0.1:8011/v1 --model smollm2
    .venv/bin/python bench/streaming.py --real-url URL --provider anthropic --key KEY --model M
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
from tmux_pane import APP_MARKER, PANE, Tmux

from ralph_tui.config import Settings, setting_specs
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
BENCH_SETTINGS: dict[str, Any] = {
    "anthropic_api_key": "sk-ant-bench",
    "generate_model": CLAUDE,
    "validate_model": CLAUDE,
    "sub_model": CLAUDE,
    "llm_max_retries": 0,
}
"""Every role on the scripted Anthropic server, no retry: the first request is the worker's."""
QUERY = "How often are the filters backwashed?"
TOKEN_CHARS = 4
"""Characters of code per token."""
CODE_LINE = "row_{:04d} = context.count('filter')\n"
FIRST_CODE = CODE_LINE[:4]
"""How every line of the scripted code starts, and nothing else on the app's screen does:
its first characters on screen are the first code visible."""
VISIBLE_WITHIN_S = 0.2
"""The target: the server's first byte to the first code visible."""
MID_STREAM_S = (0.5, 1.5)
"""When the terminal's screen is read during the stream, after the server's first byte."""
FILL_FORM_KEYS = (
    (["C-n"], None),
    (["C-n"], None),
    (["-l", QUERY], QUERY.split(" filters")[0]),
    (["Tab"], None),
    (["-l", str(SAMPLE)], SAMPLE.name),
)
"""Keys that fill the run form, each with what the screen then shows (if anything): ctrl+n
twice hides the form and shows it again with the question focused (wherever the focus
was), then the question, Tab, the document (its field shows the end of the path)."""
KEY_GAP_S = 0.2
"""After each key, as a person types: a key that moves the focus lands before the next
(sent at once, the document's path went into the question)."""
FORM_TIMEOUT_S = 10.0
RUN_END_TIMEOUT_S = 60.0
SETTLE_S = 1.0
"""How long the app is left after it paints (it warms up then, and keys sent at once were
sometimes lost) and after the run's last request before its screen is read again."""


def scripted_turn(tokens: int) -> dict[str, Any]:
    """The worker's turn: a cell of about ``tokens`` tokens of code."""
    lines: list[str] = []
    size = 0
    while size < tokens * TOKEN_CHARS:
        line = CODE_LINE.format(len(lines))
        lines.append(line)
        size += len(line)
    code = "".join(lines)[: tokens * TOKEN_CHARS]
    block: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "submit_output"}
    block["input"] = {"action": {"code": code}}
    return anthropic_message([block], stop_reason="tool_use", output_tokens=tokens)


def stream_frames(turn: dict[str, Any]) -> list[bytes]:
    """``turn`` as Anthropic streams it, one server-sent event a frame."""
    return [sse_bytes([event]) for event in anthropic_events(turn)]


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
        self.turn, self.rate = scripted_turn(tokens), rate
        self.frames = stream_frames(self.turn)
        self.requested_at: float | None = None
        self.stream: PacedStream | None = None

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if self.requested_at is not None:
            error = {"type": "invalid_request_error", "message": "the benchmark's turn is over"}
            body = {"type": "error", "error": error}
            return httpx2.Response(400, json=body)
        self.requested_at = time.perf_counter()
        if json.loads(request.content).get("stream"):
            self.stream = PacedStream(self.frames, self.rate)
            headers = {"content-type": "text/event-stream"}
            return httpx2.Response(200, headers=headers, stream=self.stream)
        await asyncio.sleep(len(self.frames) / self.rate)
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
        **BENCH_SETTINGS,
        anthropic_base_url="https://anthropic.bench",
        out_dir=out,
        stream=stream,
    )
    app = RalphApp(settings, runner=runner, config_path=out / "config")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query=QUERY, doc=SAMPLE)
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


class SseServer:
    """The scripted turn over real HTTP, as Anthropic's Messages API on 127.0.0.1, for the
    app running in a terminal: the first request gets the turn as server-sent events at
    ``rate`` frames a second, later ones a 400 that ends the run. It notes (``perf_counter``,
    in this process) when it wrote the streamed response's first byte."""

    def __init__(self, tokens: int, rate: float) -> None:
        self.frames = stream_frames(scripted_turn(tokens))
        self.rate = rate
        self.requests = 0
        self.first_byte_at: float | None = None
        self.streamed = threading.Event()
        self.ended = threading.Event()
        """Set at the request after the turn's: the run is ending."""
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> SseServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.answer(self, body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the terminal being measured is not this process's."""

        return Handler

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests += 1
            first = self.requests == 1
        if not first or not body.get("stream"):
            self.ended.set()
            error = {"type": "invalid_request_error", "message": "the benchmark's turn is over"}
            if first:
                error["message"] = "the benchmark measures streamed turns only"
            reply = json.dumps({"type": "error", "error": error}).encode()
            handler.send_response(400)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(reply)))
            handler.end_headers()
            handler.wfile.write(reply)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        started = time.perf_counter()
        self.first_byte_at = started
        handler.end_headers()  # the status line and headers: the response's first bytes
        try:
            for index, frame in enumerate(self.frames):
                wait = started + index / self.rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                handler.wfile.write(frame)
        except OSError:
            return  # the app went away mid-stream
        self.streamed.set()


def terminal_env(base_url: str, folder: Path) -> dict[str, str]:
    """The environment of ``ralph-tui`` in the terminal: the headless run's settings,
    through the variables the app reads them from, and the scripted server's address."""
    specs = setting_specs()
    values = {**BENCH_SETTINGS, "anthropic_base_url": base_url, "out_dir": folder / "out"}
    return {
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "RALPH_CONFIG_DIR": str(folder / "config"),
        "TERM": "xterm-256color",
        specs["stream"].env: "true",
        **{specs[name].env: str(value) for name, value in values.items()},
    }


@dataclass(frozen=True)
class TerminalRun:
    """What one run in the terminal showed, and when."""

    first_byte_to_screen_s: float
    screen_poll_gap_s: float
    """The code came on screen within this long before it was seen (the polling's grain)."""
    screens: dict[str, str]
    """The screen's text mid-stream and after the turn, by when it was read."""


def terminal_run(tmux: Tmux, tokens: int, rate: float, folder: Path) -> TerminalRun:
    """One run of the real app in a tmux pane against the scripted server: the form filled
    and the run started by keys, as a user does, then the screen polled until the first
    code is on it, and read again mid-stream and once the turn has run."""
    app = [sys.executable, "-m", "ralph_tui"]
    with (
        SseServer(tokens, rate) as server,
        tmux.pane(app, terminal_env(server.base_url, folder)) as pane,
    ):
        tmux.wait_for(pane, APP_MARKER)
        time.sleep(SETTLE_S)
        for keys, shows in FILL_FORM_KEYS:
            tmux("send-keys", "-t", pane, *keys)
            if shows:
                tmux.wait_for(pane, shows, FORM_TIMEOUT_S)
            time.sleep(KEY_GAP_S)
        tmux("send-keys", "-t", pane, "C-r")
        shown = tmux.wait_for(pane, FIRST_CODE)
        first_byte_at = server.first_byte_at
        assert first_byte_at is not None, "the code was on screen before the server wrote"
        screens: dict[str, str] = {}
        for after in MID_STREAM_S:
            time.sleep(max(0.0, first_byte_at + after - time.perf_counter()))
            screens[f"{after}s after the first byte"] = tmux.screen(pane)
        if not server.ended.wait(RUN_END_TIMEOUT_S):
            raise TimeoutError("the run did not ask for its next turn after the streamed one")
        time.sleep(SETTLE_S)
        screens["after the turn"] = tmux.screen(pane)
    return TerminalRun(
        first_byte_to_screen_s=shown.at - first_byte_at,
        screen_poll_gap_s=shown.gap_s,
        screens=screens,
    )


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
    parser.add_argument("--rate", type=float, default=500.0, help="events per second")
    parser.add_argument("--real-url", help="an OpenAI-compatible server to measure instead")
    parser.add_argument("--model", default="local", help="the real server's model")
    parser.add_argument("--max-tokens", type=int, default=64, help="the real server's turn")
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--key", default="unused", help="the real server's key")
    parser.add_argument(
        "--terminal",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the real app in a tmux pane (needs tmux)",
    )
    parser.add_argument("--screens", type=Path, help="write the terminal's screens here")
    args = parser.parse_args()
    if args.real_url:
        figures = asyncio.run(
            real_server(args.real_url, args.model, args.max_tokens, args.provider, args.key)
        )
        print(json.dumps({"server": args.real_url, "model": args.model, **figures}, indent=2))
        return
    print(json.dumps(app_figures(args), indent=2))


def app_figures(args: argparse.Namespace) -> dict[str, Any]:
    """The scripted turn in the headless app, streamed and whole, and (unless
    ``--no-terminal``) in the real app in a terminal; runs interleaved, so a busy moment
    hits every kind alike."""
    headless: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    terminal: list[TerminalRun] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ralph-stream-")))
        tmux = stack.enter_context(Tmux()) if args.terminal else None
        for i in range(args.runs):
            for stream in (True, False):
                folder = tmp / f"headless-{stream}-{i}"
                headless[stream].append(
                    asyncio.run(one_run(stream, args.tokens, args.rate, folder))
                )
            if tmux is not None:
                terminal.append(terminal_run(tmux, args.tokens, args.rate, tmp / f"terminal-{i}"))
    results: dict[str, Any] = {
        "streamed": medians(headless[True]),
        "whole (--no-stream)": medians(headless[False]),
    }
    streamed = results["streamed"]
    figures: dict[str, Any] = {
        "tokens": args.tokens,
        "rate_per_s": args.rate,
        "stream_s": round(len(stream_frames(scripted_turn(args.tokens))) / args.rate, 2),
        "runs": args.runs,
        "partial_interval_s": PARTIAL_INTERVAL_S,
        "results": results,
        "first_visible_within_0_2_s": streamed["first_byte_to_visible_s"] <= VISIBLE_WITHIN_S,
        "event_rate_bounded": streamed["partial_events_max_per_s"]
        <= LEADING_PARTIALS + 1 / PARTIAL_INTERVAL_S + 1,
    }
    if terminal:
        figures["terminal"] = terminal_figures(terminal, streamed["first_byte_to_visible_s"])
        if args.screens:
            write_screens(terminal, args.screens)
    return figures


def terminal_figures(runs: list[TerminalRun], headless_s: float) -> dict[str, Any]:
    """The terminal runs' medians, beside the headless app's in the same run."""
    seen = [run.first_byte_to_screen_s for run in runs]
    median = round(statistics.median(seen), 3)
    return {
        "app": f"python -m ralph_tui in a tmux pane {PANE[0]}x{PANE[1]}, run started by keys",
        "clock": "time.perf_counter in one process: the scripted HTTP server's thread notes "
        "its first byte, the main thread polls capture-pane",
        "first_byte_to_screen_s": median,
        "first_byte_to_screen_runs_s": [round(s, 3) for s in seen],
        "screen_poll_gap_s": round(statistics.median(run.screen_poll_gap_s for run in runs), 4),
        "headless_first_byte_to_visible_s": headless_s,
        "first_visible_within_0_2_s": median <= VISIBLE_WITHIN_S,
    }


def write_screens(runs: list[TerminalRun], folder: Path) -> None:
    """Each terminal run's screens as text files, to read what the app showed."""
    folder.mkdir(parents=True, exist_ok=True)
    for number, run in enumerate(runs, 1):
        for when, screen in run.screens.items():
            (folder / f"run-{number}-{when.replace(' ', '-')}.txt").write_text(screen)


if __name__ == "__main__":
    main()
