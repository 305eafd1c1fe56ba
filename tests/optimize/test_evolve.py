"""``optimize --evolve``: GEPA over a suite, against a scripted model whose worker passes
only when its prompt holds an instruction, and whose reflection proposes that instruction
once it reads the validator's feedback. GEPA must find the better prompt in its budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.batch import jobs
from ralph_tui.cli import run_cli
from ralph_tui.llm import factory
from ralph_tui.loops import runner
from ralph_tui.optimize.evaluator import evaluate
from ralph_tui.traces.store import TraceStore
from ralph_tui.variants.store import VariantStore
from tests.llm.llm_wire import openai_completion
from tests.loops.baseline_server import BaselineServer, role_of

INSTRUCTION = "Copy every quote whole from the printed sentences."
BAD = {"answer": "- It is done weekly.", "evidence": ["Filters are cleaned every week."],
       "lineQuotes": [[1]], "resultReady": True}  # fmt: skip


class ScriptedModel(BaselineServer):
    """The worker passes (the offline baseline) only with ``INSTRUCTION`` in its system
    prompt; otherwise, after the baseline's search, it submits an answer the document does
    not hold. Reflection
    (a request without tools asking for new instructions) adds ``INSTRUCTION`` when the
    feedback says quotes were not in the document."""

    def __init__(self) -> None:
        super().__init__()
        self.reflections: list[str] = []

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        prompt = "\n".join(str(m.get("content") or "") for m in body["messages"])
        if not body.get("tools") and "``` blocks" in prompt:
            self.reflections.append(prompt)
            current = prompt.split("```", 2)[1].strip()
            fix = f" {INSTRUCTION}" if "not in the document" in prompt else ""
            return httpx2.Response(
                200, json=openai_completion({"content": f"```\n{current}{fix}\n```"})
            )
        tools = body.get("tools") or []
        explored = any(m["role"] == "tool" for m in body["messages"])
        worker = tools and role_of(_tool(tools[0])) == "worker"
        if worker and explored and INSTRUCTION not in prompt:
            call = {
                "id": "c1",
                "type": "function",
                "function": {"name": "submit_output", "arguments": json.dumps({"action": BAD})},
            }
            return httpx2.Response(
                200, json=openai_completion({"content": None, "tool_calls": [call]})
            )
        return await super().handle(request)


def _tool(wire: dict[str, Any]) -> Any:
    from ralph_tui.llm.types import ToolDefinition

    return ToolDefinition(**wire["function"])


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    server = ScriptedModel()

    def client() -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))

    def execute_run(*args: Any, **kwargs: Any) -> Any:
        return runner.execute_run(*args, http_client=client(), **kwargs)

    real_build = factory.build_clients
    monkeypatch.setattr(jobs, "execute_run", execute_run)
    monkeypatch.setattr(
        "ralph_tui.optimize.evolve.build_clients",
        lambda settings, **kw: real_build(settings, http_client=client(), **kw),
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://local.test/v1")
    return server


def test_gepa_finds_the_prompt_that_passes_within_its_budget(
    model: ScriptedModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["optimize", "--evolve", "--suite", "sample", "--budget", "24",
                    "--generate-model", "openai:local", "--validate-model", "openai:local",
                    "--maxIters", "1", "--embedder", "offline", "--out", str(out),
                    "--json"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)
    scores = {c["variant"]: c["score"] for c in result["candidates"]}
    assert scores[result["seed"]] == 0.0
    assert result["best"] != result["seed"] and scores[result["best"]] > 0.5
    best = VariantStore(out).get(result["best"])
    assert INSTRUCTION in best.prompts["worker"] and best.change == "evolved prompts (GEPA)"
    assert result["active"] == best.id
    assert model.reflections and "not in the document" in model.reflections[0]
    assert "How it explored the document" in model.reflections[0]  # the code, from the traces
    # Every evaluation ran as sessions under its variant: the evaluator measures both.
    figures = evaluate(TraceStore(out))
    assert figures[result["seed"]].pass_rate == 0.0
    assert figures[best.id].pass_rate > figures[result["seed"]].pass_rate
    assert (out / "optimize" / "gepa-sample").is_dir()


def test_evolve_refuses_the_offline_baseline_and_a_missing_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    assert run_cli(["optimize", "--evolve", "--out", out]) == 2
    assert "--evolve needs --suite" in capsys.readouterr().err
    assert run_cli(["optimize", "--evolve", "--suite", "sample", "--provider", "offline",
                    "--out", out]) == 2  # fmt: skip
    assert "needs a real model for reflection" in capsys.readouterr().err


def test_an_interrupted_evolution_resumes_from_its_run_dir(
    model: ScriptedModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["optimize", "--evolve", "--suite", "sample", "--generate-model", "openai:local",
            "--validate-model", "openai:local", "--maxIters", "1", "--embedder", "offline",
            "--out", str(out), "--json"]  # fmt: skip
    assert run_cli([*args, "--budget", "3"]) == 0  # the seed's validation, then out of budget
    first = json.loads(capsys.readouterr().out)
    assert first["best"] == first["seed"] and not model.reflections
    assert first["active"] is None, "a seed nothing beat is not made active"
    sessions = len(TraceStore(out).index.list_sessions(limit=None))
    assert run_cli([*args, "--budget", "24"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["best"] != second["seed"] and model.reflections
    log = (out / "optimize" / "gepa-sample" / "run_log.txt").read_text(encoding="utf-8")
    assert "Loading gepa state from run dir" in log  # it went on from where it stopped
    assert len(TraceStore(out).index.list_sessions(limit=None)) > sessions
