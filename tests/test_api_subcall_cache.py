"""What the Python API says the sub-call cache saved: in a run's usage, and in the sessions it
lists and shows. Runs through both real SDKs against a scripted network on 127.0.0.1 (the
API takes its keys and endpoints from the environment, as a script's would)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.api import ask, session, sessions
from ralph_tui.events import BaseEvent, SubQuery
from ralph_tui.llm.pricing import price_of
from ralph_tui.traces.models import CacheSaving
from tests.llm.loopback import serving
from tests.loops.test_sdk_run import DOCUMENT
from tests.loops.test_subcall_cache_runs import Network

SUB_MODEL = "gpt-4o-mini"


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(DOCUMENT)
    return path


def run_twice_asked(
    document: Path, out: Path, monkeypatch: pytest.MonkeyPatch, scope: str
) -> tuple[list[SubQuery], Network, CacheSaving]:
    """A two-iteration session whose retry asks its one sub-question again; the sub-queries
    it made, the network it made them on, and what the result says the cache saved."""
    network = Network(rejected=1)
    events: list[BaseEvent] = []
    with serving(network.handle) as loopback:
        for name, value in loopback.environment.items():
            monkeypatch.setenv(name, value)
        result = ask(
            "What is kept?", document, out_dir=out, max_iters=2, sub_model=f"openai:{SUB_MODEL}",
            subcall_cache=scope, on_event=events.append,
        )  # fmt: skip
    assert result.passed and result.iterations == 2, result.error
    listed = [s for s in sessions(out) if s.session_id == result.session_id]
    assert [s.subcall_cache_saved for s in listed] == [result.usage.subcall_cache_saved]
    shown = session(result.session_id, out)
    assert shown.subcall_cache_saved == result.usage.subcall_cache_saved
    return [e for e in events if isinstance(e, SubQuery)], network, result.usage.subcall_cache_saved


def test_a_run_says_what_the_cache_saved_it(
    tmp_path: Path, document: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked, network, saved = run_twice_asked(document, tmp_path / "out", monkeypatch, "session")
    cached = [e for e in asked if e.cached]
    assert network.sub_calls == 1 and len(cached) == 1, "the retry's sub-question was not sent"
    price = price_of(SUB_MODEL)
    assert price is not None
    assert saved.calls == 1
    assert saved.input_tokens == cached[0].input_tokens > 0
    assert saved.output_tokens == cached[0].output_tokens > 0
    assert saved.cost_usd == pytest.approx(price.cost(saved.input_tokens, saved.output_tokens))


def test_a_run_the_cache_saved_nothing_says_so(
    tmp_path: Path, document: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked, network, saved = run_twice_asked(document, tmp_path / "out", monkeypatch, "off")
    assert network.sub_calls == 2 and not any(e.cached for e in asked)
    assert saved == CacheSaving() and saved.calls == 0
