"""The MCP server's ``estimate`` tool, over stdio with the MCP SDK's own client: the run's
figures without running it, under the same roots and client-settings bounds as a run."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.estimates import RunEstimate
from tests.mcp.test_stdio_server import QUESTION, SAMPLE, call, connected, error_of


async def test_estimate_gives_every_mode_and_runs_nothing(tmp_path: Path) -> None:
    async with connected(tmp_path, args=("--cost-cap", "0.05")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await call(
            client, "estimate", query=QUESTION, paths=[SAMPLE.name],
            settings={"inner": "lcm", "max_iters": 2},
        )  # fmt: skip
    schema = tools["estimate"].output_schema or {}
    assert set(schema["properties"]) == set(RunEstimate.model_fields)
    estimate = RunEstimate.model_validate(result)
    assert estimate.selected is not None and estimate.selected.mode == "lcm"
    assert {"rlm", "lcm"} <= {m.mode for m in estimate.modes}
    assert estimate.max_iters == 2 and estimate.cost_cap_usd == 0.05
    assert (
        estimate.selected.cap_stops and "$0.05 cost cap" in estimate.selected.cap_stops[0].message
    )
    assert not (tmp_path / "out" / "sessions").exists()


async def test_estimate_keeps_to_the_roots_and_the_client_settings(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("Not for the client. " * 20, encoding="utf-8")
    async with connected(tmp_path, args=("--maxIters", "3")) as client:
        escaped = await error_of(client, "estimate", query=QUESTION, paths=[str(outside)])
        models = await error_of(
            client, "estimate", query=QUESTION, paths=[SAMPLE.name],
            settings={"generate_model": "anthropic:claude-opus-4-1"},
        )  # fmt: skip
        raised = await error_of(
            client, "estimate", query=QUESTION, paths=[SAMPLE.name], settings={"max_iters": 9}
        )
    assert "outside" in escaped and "secret" not in escaped.replace(str(outside), "")
    assert "generate_model is the server's to set" in models
    assert "max_iters = 9 is past what a client may set" in raised
