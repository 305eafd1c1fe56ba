"""``ralph-tui eval --inner rlm,direct,lcm``: one suite run under each inner mode and
compared side by side, as a table and as JSON; a bad mode refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.traces.store import TraceStore

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def suite(tmp_path: Path) -> Path:
    item = {"id": "backwash", "mode": "qa", "query": "How often are the filters backwashed?",
            "doc": str(SAMPLE), "expect": {"facts": ["48 hours"]}}  # fmt: skip
    path = tmp_path / "suite.jsonl"
    path.write_text(json.dumps(item) + "\n")
    return path


def test_each_mode_gets_a_row_with_what_it_spent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["eval", "--suite", str(suite(tmp_path)), "--provider", "offline",
                    "--inner", "rlm,direct,lcm", "--out", str(out), "--id", "cmp",
                    "--json"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    modes = result["modes"]
    assert [m["inner"] for m in modes] == ["rlm", "direct", "lcm"]
    assert [m["id"] for m in modes] == ["cmp-rlm", "cmp-direct", "cmp-lcm"]
    store = TraceStore(out)
    for entry in modes:
        summary = entry["summary"]
        assert summary["items"] == 1 and summary["found"] == 1.0
        assert summary["mean_tokens"] > 0 and summary["total_cost_usd"] == 0.0
        [item] = entry["items"]
        record = store.load_session(item["session_id"])
        assert record.inner is not None and record.inner.mode == entry["inner"]
    tokens = {m["inner"]: m["summary"]["mean_tokens"] for m in modes}
    assert tokens["direct"] < tokens["rlm"]


def test_the_table_has_one_row_per_mode_and_one_mode_keeps_the_old_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = suite(tmp_path), str(tmp_path / "out")
    code = run_cli(["eval", "--suite", str(path), "--provider", "offline",
                    "--inner", "direct,lcm", "--out", out])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    header = next(line for line in lines if line.startswith("inner"))
    assert header.split() == ["inner", "passed", "found", "ev.P", "ev.R", "calls", "tokens",
                              "cost", "wall", "s"]  # fmt: skip
    rows = [line.split() for line in lines if line.split()[:1] in (["direct"], ["lcm"])]
    assert [row[0] for row in rows] == ["direct", "lcm"] and all(row[1] == "100%" for row in rows)

    code = run_cli(["eval", "--suite", str(path), "--provider", "offline", "--inner", "direct",
                    "--out", out, "--json"])  # fmt: skip
    single = json.loads(capsys.readouterr().out)
    assert code == 0 and set(single) == {"id", "folder", "summary", "items"}
    [item] = single["items"]
    assert TraceStore(Path(out)).load_session(item["session_id"]).inner.mode == "direct"  # type: ignore[union-attr]


def test_an_unknown_mode_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["eval", "--suite", str(suite(tmp_path)), "--provider", "offline",
                    "--inner", "rlm,sandbox", "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "sandbox is not an inner mode" in err and "direct" in err
    assert not (out / "evals").exists()


def test_an_item_too_large_for_direct_is_that_item_s_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["eval", "--suite", str(suite(tmp_path)), "--provider", "offline",
                    "--inner", "direct,auto", "--context-window", "9000",
                    "--out", str(tmp_path / "out"), "--json"])  # fmt: skip
    direct, auto = json.loads(capsys.readouterr().out)["modes"]
    assert code == 1
    [refused] = direct["items"]
    assert refused["status"] == "rejected" and refused["session_id"] == ""
    assert refused["error"].startswith("--inner direct: the documents (~")
    assert "unexpected" not in refused["error"]
    [picked] = auto["items"]
    assert picked["status"] in ("passed", "failed") and picked["session_id"]
