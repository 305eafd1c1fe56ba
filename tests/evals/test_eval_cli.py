"""``ralph-tui eval`` with the offline provider: the table, the JSON, the files kept, the
list, and bad input refused with nothing run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli


def test_the_needle_suite_offline_is_found_everywhere_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["eval", "--suite", "needle", "--sizes", "8k,16k", "--depths", "0,0.5,1",
                    "--provider", "offline", "--out", str(out), "--id", "n1",
                    "--json"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["id"] == "n1"
    summary = result["summary"]
    assert summary["items"] == 6 and summary["found"] == 1.0
    assert summary["by_size_depth"]["16000"] == {"0.00": 1.0, "0.50": 1.0, "1.00": 1.0}
    folder = out / "evals" / "n1"
    for name in ("suite.jsonl", "results.jsonl", "summary.json", "plot.html"):
        assert (folder / name).is_file()
    assert "<svg" in (folder / "plot.html").read_text()
    for item in result["items"]:
        assert (out / "sessions" / item["session_id"] / "events.jsonl").is_file()

    assert run_cli(["eval", "--list", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("n1  6 items")


def test_the_sample_suite_prints_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["eval", "--suite", "sample", "--provider", "offline", "--out",
                    str(tmp_path / "out"), "--concurrency", "3"])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert "sample-backwash" in captured.out and "evidence precision" in captured.out
    assert "6/6 done" in captured.err


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--suite", "{suite}"], "suite.jsonl:2: query: Field required"),
        (["--suite", "{suite}", "--sizes", "8k"], "--sizes and --depths are for the needle"),
        (["--suite", "needle", "--sizes", "huge"], "'huge' is not a size"),
        (["--suite", "sample", "--concurrency", "0"], "--concurrency is at least 1"),
        ([], "--suite is required"),
    ],
)
def test_bad_input_is_one_line_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], problem: str
) -> None:
    (tmp_path / "doc.md").write_text("Text.", encoding="utf-8")
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"id": "a", "query": "q", "doc": "doc.md"}\n{"id": "b", "doc": "doc.md"}\n')
    out = tmp_path / "out"
    argv = ["eval", *[a.format(suite=suite) for a in args], "--provider", "offline",
            "--out", str(out)]  # fmt: skip
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert problem in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"id": "a", "query": ' + "[" * 100_000 + "]" * 100_000 + ', "doc": "doc.md"}',
         "suite.jsonl:1: nested deeper than 64 levels"),
        ('{"id": "a", "query": "q", "doc": "doc.md", "expect": {"evidence_spans": [[0, '
         + "9" * 400 + "]]}}", "suite.jsonl:1: not valid JSON (the integer 999"),
        ('{"id": "a", "query": "q", "doc": "doc.md", "x": NaN}',
         "suite.jsonl:1: not valid JSON (NaN is not a JSON number)"),
    ],
    ids=["nested", "400 digits", "NaN"],
)  # fmt: skip
def test_a_suite_past_the_json_bounds_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, problem: str
) -> None:
    (tmp_path / "doc.md").write_text("Text.", encoding="utf-8")
    suite = tmp_path / "suite.jsonl"
    suite.write_text(line + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code = run_cli(["eval", "--suite", str(suite), "--provider", "offline", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert problem in err and len(err.strip().splitlines()) == 1 and len(err) < 600
    assert not out.exists()


def test_the_ray_executor_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray")
    out = tmp_path / "out"
    code = run_cli(["eval", "--suite", "needle", "--sizes", "8k", "--depths", "0,1",
                    "--executor", "ray", "--concurrency", "2", "--provider", "offline",
                    "--out", str(out), "--json"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["summary"]["found"] == 1.0
    assert all((out / "sessions" / i["session_id"]).is_dir() for i in result["items"])


def test_a_ray_address_needs_the_ray_executor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["eval", "--suite", "sample", "--ray-address", "ray://head:10001",
                    "--provider", "offline", "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 2 and "--ray-address needs --executor ray" in capsys.readouterr().err


def test_a_span_past_the_documents_end_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "doc.md").write_text("Five.", encoding="utf-8")
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"id": "a", "query": "q", "doc": "doc.md", '
                     '"expect": {"evidence_spans": [[0, 400]]}}\n')  # fmt: skip
    out = tmp_path / "out"
    assert run_cli(["eval", "--suite", str(suite), "--provider", "offline", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{suite}:1: the evidence span [0, 400] ends past the end of doc.md" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
