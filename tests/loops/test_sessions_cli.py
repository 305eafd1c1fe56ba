"""`ralph-tui sessions list|show|reindex` over sessions written by real runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    assert run_cli(list(args)) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_list_show_search_and_reindex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out")
    common = ["--provider", "offline", "--doc", str(SAMPLE), "--out", out, "--json"]
    qa = cli_json(capsys, "run", "--mode", "qa", "--query", "chlorine residual target", *common)
    task = cli_json(capsys, "run", "--query", "Summarize the alarm escalation", *common)
    assert isinstance(qa, dict) and isinstance(task, dict)

    listed = cli_json(capsys, "sessions", "list", "--out", out, "--json")
    assert isinstance(listed, list)
    assert [row["sessionId"] for row in listed] == [task["sessionId"], qa["sessionId"]]
    only_qa = cli_json(capsys, "sessions", "list", "--mode", "qa", "--out", out, "--json")
    assert isinstance(only_qa, list) and [r["sessionId"] for r in only_qa] == [qa["sessionId"]]
    found = cli_json(capsys, "sessions", "list", "--search", "escalation", "--out", out, "--json")
    assert isinstance(found, list) and [r["sessionId"] for r in found] == [task["sessionId"]]

    shown = cli_json(capsys, "sessions", "show", str(qa["sessionId"]), "--out", out, "--json")
    assert isinstance(shown, dict) and shown["status"] == "passed"
    assert shown["iterationTraces"][0]["passed"] is True
    assert run_cli(["sessions", "show", str(qa["sessionId"]), "--out", out]) == 0
    [usage] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("usage:")]
    assert "tokens in" in usage and "$0.0000" in usage and "prompt cache" not in usage

    (tmp_path / "out" / "index.sqlite").unlink()
    reindexed = cli_json(capsys, "sessions", "reindex", "--out", out, "--json")
    assert reindexed == {"sessions": 2, "seconds": reindexed["seconds"], "skipped": []}  # type: ignore[index]
    assert cli_json(capsys, "sessions", "list", "--out", out, "--json") == listed


def test_show_unknown_session_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["sessions", "show", "2026-01-01/qa-00000000", "--out", str(tmp_path)])
    assert code == 2 and "no session" in capsys.readouterr().err


def test_show_finds_a_session_by_the_end_of_its_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = TraceStore(tmp_path)
    day = 86_400.0
    asked_twice = [
        store.create_session(SessionRecord(mode="qa", query="asked twice", created_at=t))
        for t in (1_700_000_000.0, 1_700_000_000.0 + day)
    ]
    once = store.create_session(SessionRecord(mode="qa", query="asked once"))
    once.finish("passed")
    suffix = once.session_id.split("/")[1]  # qa-<hash8>, without the date
    for given in (suffix, suffix.removeprefix("qa-")):
        assert run_cli(["sessions", "show", given, "--out", str(tmp_path)]) == 0
        assert capsys.readouterr().out.startswith(f"{once.session_id}  qa  passed")

    twice = asked_twice[0].session_id.split("/")[1]
    assert run_cli(["sessions", "show", twice, "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert f"{twice!r} is the end of 2 session ids" in captured.err
    assert all(handle.session_id in captured.err for handle in asked_twice)

    assert run_cli(["sessions", "show", "qa-00000000", "--out", str(tmp_path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "no session 'qa-00000000'" in captured.err
    assert json.loads(captured.out)["errorKind"] == "UnknownSessionError"


def test_a_capped_list_says_so_and_all_lists_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    common = ["--provider", "offline", "--doc", str(SAMPLE), "--out", out, "--maxIters", "1"]
    for query in ("chlorine residual target", "filter backwash", "standby generator fuel"):
        assert run_cli(["run", "--mode", "qa", "--query", query, *common, "--json"]) in (0, 1)
    capsys.readouterr()

    assert run_cli(["sessions", "list", "--limit", "2", "--out", out, "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 2
    assert "there are more" in captured.err and "--all" in captured.err

    for every in (["--all"], ["--limit", "0"], ["--limit", "3"]):
        assert run_cli(["sessions", "list", *every, "--out", out, "--json"]) == 0
        captured = capsys.readouterr()
        assert len(json.loads(captured.out)) == 3
        assert captured.err == ""

    assert run_cli(["sessions", "list", "--limit", "-1", "--out", out]) == 2
    assert "not a count of sessions" in capsys.readouterr().err
