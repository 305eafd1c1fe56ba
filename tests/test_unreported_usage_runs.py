"""A whole run against a generate model whose server reports no token usage (an Anthropic
proxy that streams 0 input tokens and answers whole requests with 0 too) and has no list
price, judged by a priced OpenAI model: the Python API's usage, the session record, the run's
progress line and ``sessions show`` count every request, say which tokens are estimated, and
say the cost is only partly known — never ``$0.0000`` alone. Through both real SDKs against a
scripted network on 127.0.0.1."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.api import ask, session
from ralph_tui.events import BaseEvent, Notice, UsageUpdated
from ralph_tui.main import main
from ralph_tui.progress_lines import ProgressPrinter
from ralph_tui.traces.models import SessionRecord
from tests.llm.llm_wire import streamed
from tests.llm.loopback import serving
from tests.loops.test_sdk_run import ALL_SUPPORTED, DOCUMENT, QUOTES, worker_reply


def silent(arguments: dict[str, Any]) -> dict[str, Any]:
    """The worker's turn as the proxy gives it: no usage (0 tokens either way)."""
    reply = worker_reply(arguments)
    reply["usage"] = {"input_tokens": 0, "output_tokens": 0}
    reply["model"] = "smollm2"
    return reply


class Network:
    """The proxy (no usage, no price) for the worker and a priced judge; counts requests."""

    def __init__(self) -> None:
        answer = "- Two days of supply.\n- Filters every 48 hours.\n- Alarms escalate."
        self.scripts: dict[str, list[dict[str, Any]]] = {
            "anthropic.test": [
                silent({"code": "print(len(context))", "resultReady": False}),
                silent({"answer": answer, "evidence": QUOTES, "resultReady": True}),
            ],
            "openai.test": [ALL_SUPPORTED],
        }
        self.requests = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        reply = self.scripts[request.url.host].pop(0)
        return streamed(request, httpx2.Response(200, json=reply))


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(DOCUMENT)
    return path


def test_a_run_on_a_server_without_usage_counts_every_call_and_says_what_is_estimated(
    tmp_path: Path, document: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    network = Network()
    out = tmp_path / "out"
    events: list[BaseEvent] = []
    with serving(network.handle) as loopback:
        for name, value in loopback.environment.items():
            monkeypatch.setenv(name, value)
        result = ask(
            "How is the plant run?", document, out_dir=out, max_iters=1,
            generate_model="anthropic:smollm2", validate_model="openai:gpt-4o-mini",
            on_event=events.append,
        )  # fmt: skip
    assert result.passed, result.error
    usage = result.usage
    assert usage.calls == network.requests == 3
    assert usage.estimated_calls == 2, "both worker turns: the stream, then a whole request"
    assert usage.input_tokens > 2 * len(DOCUMENT) // 8, "the worker's prompts were counted"
    assert usage.unknown_cost_calls == 2 and usage.cost_usd is not None and usage.cost_usd > 0
    assert "estimated for 2 of 3 calls" in usage.describe()
    assert usage.describe().endswith(" + unknown")
    first = next(e for e in events if isinstance(e, UsageUpdated))
    assert (first.calls, first.cost_usd) == (0, None), "unknown from the start, not $0"
    said = [e.message for e in events if isinstance(e, Notice)]
    assert sum("estimated by a tokenizer" in m for m in said) == 2, said

    progress = io.StringIO()
    printer = ProgressPrinter(progress)
    for event in events:
        if isinstance(event, UsageUpdated):
            printer(event)
    assert printer.status().endswith(
        f"(estimated for 2 of 3 calls), ${usage.cost_usd:.4f} + unknown"
    )

    shown = session(result.session_id, out)
    assert (shown.estimated_calls, shown.unknown_cost_calls) == (2, 2)
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main(["sessions", "show", result.session_id, "--out", str(out)]) == 0
    assert "out (estimated for 2 of 3 calls), $" in printed.getvalue()
    assert " + unknown" in printed.getvalue()


def test_a_session_recorded_before_estimates_were_counted_still_loads(tmp_path: Path) -> None:
    older = {"session_id": "2026-01-01/qa-00000001", "mode": "qa", "query": "q",
             "input_tokens": 10, "output_tokens": 2, "cost_usd": None, "llm_calls": 1}  # fmt: skip
    record = SessionRecord.model_validate_json(json.dumps(older))
    assert (record.estimated_calls, record.unknown_cost_calls) == (0, 0)


def test_an_unpriced_model_is_never_shown_as_free() -> None:
    """The reported bug: a run whose only priced call was cheap showed ``$0.0000``."""
    printer = ProgressPrinter(io.StringIO())
    printer(
        UsageUpdated(
            input_tokens=900, output_tokens=40, calls=3, cost_usd=0.0, unknown_cost_calls=2
        )
    )
    assert printer.status().endswith("$0.0000 + unknown")
    printer(UsageUpdated(input_tokens=900, output_tokens=40, calls=3, cost_usd=None))
    assert printer.status().endswith("cost unknown")
