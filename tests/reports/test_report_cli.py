"""``ralph-tui report`` and ``run --report``: formats, files, exit codes, and nothing written
on bad input."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import jsonschema
import pytest
from lxml import html as lxml_html

from ralph_tui.cli import run_cli
from ralph_tui.reports.schema import bundle_schema
from tests.reports.sessions import QUOTES, record_session

pytestmark = pytest.mark.usefixtures("clean_env")

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def recorded(tmp_path: Path) -> tuple[str, str]:
    settings, session_id = record_session(tmp_path)
    return str(settings.out_dir), session_id


def test_markdown_goes_to_stdout_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, session_id = recorded(tmp_path)
    assert run_cli(["report", session_id, "--out", out]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# ralph-tui report\n")
    assert f"`{session_id}`" in printed


def test_json_on_stdout_is_the_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, session_id = recorded(tmp_path)
    short = session_id.rsplit("-", 1)[1]  # a unique end of the id is enough
    assert run_cli(["report", short, "--out", out, "--json"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    jsonschema.validate(bundle, bundle_schema())
    assert bundle["session_id"] == session_id
    assert run_cli(["report", short, "--out", out, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["quotes"] == bundle["quotes"]


def test_the_file_extension_picks_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, session_id = recorded(tmp_path)
    target = tmp_path / "shared" / "report.html"
    target.parent.mkdir()
    assert run_cli(["report", session_id, "--out", out, "-o", str(target)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote the html report of {session_id} to {target} (")
    page = lxml_html.document_fromstring(target.read_text(encoding="utf-8"))
    assert len(page.xpath("//mark")) == len(QUOTES)
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temp file left

    as_md = tmp_path / "shared" / "report.txt"
    assert run_cli(["report", session_id, "--out", out, "-o", str(as_md), "--format", "md"]) == 0
    assert as_md.read_text(encoding="utf-8").startswith("# ralph-tui report")
    capsys.readouterr()
    as_json = tmp_path / "shared" / "bundle.json"
    assert run_cli(["report", session_id, "--out", out, "-o", str(as_json), "--json"]) == 0
    said_json = json.loads(capsys.readouterr().out)
    assert said_json == {"path": str(as_json), "format": "json", "bytes": as_json.stat().st_size}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch"], "no session 'nosuch'"),
        (["{id}", "-o", "{tmp}/report.pdf"], "cannot tell the report format of"),
        (["{id}", "-o", "{tmp}/missing/report.html"], "no folder"),
        (["{id}", "-o", "{tmp}"], "is a folder"),
        (["{id}", "--json", "--format", "md"], "--json prints the JSON bundle"),
        (["{id}", "--format", "pdf"], "invalid choice: 'pdf'"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    out, session_id = recorded(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    filled = [arg.format(id=session_id, tmp=tmp_path) for arg in args]
    assert run_cli(["report", *filled, "--out", out]) == 2
    captured = capsys.readouterr()
    if "--json" in args:  # the error as one JSON object too, for scripts
        assert json.loads(captured.out)["exitCode"] == 2
    else:
        assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("ralph-tui") and message in line
    assert sorted(tmp_path.rglob("*")) == before


def test_run_writes_its_report_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "answer.md"
    code = run_cli(
        ["run", "--provider", "offline", "--mode", "qa", "--query", "How often are the filters "
         "backwashed?", "--doc", str(SAMPLE), "--out", str(tmp_path / "out"), "--json",
         "--report", str(report)]
    )  # fmt: skip
    captured = capsys.readouterr()
    outcome = json.loads(captured.out)
    assert code == 0 and outcome["status"] == "passed"
    assert f"report: {report}" in captured.err
    text = report.read_text(encoding="utf-8")
    assert f"`{outcome['sessionId']}`" in text and "passed · 1 iteration ·" in text


def test_run_refuses_a_report_file_it_could_not_write_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(
        ["run", "--provider", "offline", "--mode", "qa", "--query", "q", "--doc", str(SAMPLE),
         "--out", str(tmp_path / "out"), "--report", str(tmp_path / "answer.docx")]
    )  # fmt: skip
    assert code == 2 and "cannot tell the report format" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_report_shows_the_models_that_ran_and_follows_the_umask(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "answer.json"
    old = os.umask(0o022)
    try:
        code = run_cli(
            ["run", "--provider", "offline", "--mode", "qa", "--query", "How often are the "
             "filters backwashed?", "--doc", str(SAMPLE), "--out", str(tmp_path / "out"),
             "--report", str(report), "--generate-model", "claude-sonnet-4-6"]
        )  # fmt: skip
    finally:
        os.umask(old)
    capsys.readouterr()
    assert code == 0
    bundle = json.loads(report.read_text(encoding="utf-8"))
    assert bundle["settings"]["generateModel"] == bundle["models"]["generate"]
    assert bundle["models"]["generate"].startswith("offline:")
    assert "claude" not in json.dumps(bundle["settings"])
    assert stat.S_IMODE(report.stat().st_mode) == 0o644  # shared, unlike the session's files
    session_json = next((tmp_path / "out" / "sessions").rglob("session.json"))
    assert stat.S_IMODE(session_json.stat().st_mode) == 0o600
