"""``ralph-tui run ... --estimate``: the estimate printed, exit 0, no run, no key, no network;
past sessions of the same models under the out dir become its basis."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.evals.needle import HANDBOOK

QUESTION = "How often are the filters backwashed?"


class NoNetwork(socket.socket):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("the estimate opened a socket")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "socket", NoNetwork)
    monkeypatch.setattr(socket, "create_connection", NoNetwork)


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "handbook.md"
    path.write_text(HANDBOOK.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def estimate(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(["run", "--mode", "qa", "--query", QUESTION, "--estimate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.usefixtures("clean_env", "no_network")
def test_estimate_prints_a_table_and_runs_nothing(
    tmp_path: Path, doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = estimate(
        ["--doc", str(doc), "--out", str(out), "--cost-cap", "0.5"], capsys
    )
    assert code == 0, stderr
    assert "No model was called" in stdout
    assert "*  rlm" in stdout and "lcm" in stdout and "direct" in stdout
    assert "settings only" in stdout
    assert "the $0.50 cost cap stops it" in stdout
    assert "anthropic:claude-sonnet-4-6" in stdout and "openai:gpt-5.4-mini" in stdout
    assert not (out / "sessions").exists()


@pytest.mark.usefixtures("clean_env", "no_network")
def test_estimate_json_with_an_unknown_price(
    tmp_path: Path, doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, _ = estimate(
        ["--doc", str(doc), "--out", str(tmp_path / "out"), "--json", "--inner", "lcm",
         "--generate-model", "openai:local", "--validate-model", "openai:local"],
        capsys,
    )  # fmt: skip
    assert code == 0
    result = json.loads(stdout)
    assert [m["mode"] for m in result["modes"] if m["selected"]] == ["lcm"]
    lcm = next(m for m in result["modes"] if m["mode"] == "lcm")
    assert lcm["expected"]["cost_usd"] is None and lcm["expected"]["input_tokens"] > 0
    assert lcm["expected"]["unknown_price"] == ["openai:local"]
    assert result["doc_chars"] == len(doc.read_text(encoding="utf-8"))


@pytest.mark.usefixtures("clean_env")
def test_past_sessions_of_the_same_models_become_the_basis(
    tmp_path: Path, doc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    given = ["--doc", str(doc), "--out", str(out), "--maxIters", "1"]
    offline = [*given, "--provider", "offline"]
    assert run_cli(["run", "--mode", "qa", "--query", QUESTION, *offline]) == 0
    ran = json.loads((next((out / "sessions").glob("*/*/session.json"))).read_text())
    capsys.readouterr()
    monkeypatch.setattr(socket, "socket", NoNetwork)
    code, stdout, _ = estimate([*offline, "--json"], capsys)
    assert code == 0
    modes = {m["mode"]: m for m in json.loads(stdout)["modes"]}
    assert modes["rlm"]["basis"] == "1 past session"
    assert modes["lcm"]["basis"] == "settings only"
    spent = ran["input_tokens"] + ran["output_tokens"]
    expected = modes["rlm"]["expected"]
    assert expected["input_tokens"] + expected["output_tokens"] == pytest.approx(spent, rel=0.05)
    # Another model's sessions say nothing about this one.
    code, stdout, _ = estimate(
        [*given, "--generate-model", "openai:local", "--price", "openai:local=1/2", "--json"],
        capsys,
    )
    assert {m["basis"] for m in json.loads(stdout)["modes"]} == {"settings only"}
