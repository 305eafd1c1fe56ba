"""``ralph-tui [DOC ...] [--query TEXT] [--mode qa|task] [settings flags]``: the app takes
what ``run`` takes, through ``ralph_tui.main``. What is wrong is one line and exit 2 before
the app starts, in ``run``'s words; what is right reaches the app as its settings (the flags
over the environment) and its run form. The app itself is replaced by a recorder here:
``tests/tui/test_app_command_line.py`` opens the real one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ralph_tui.tui.app
from ralph_tui.cli.app_start import AppStart, FormFill
from ralph_tui.cli.commands import COMMANDS
from ralph_tui.main import main
from tests.test_start_path import COMMAND_LINE, RUN_MODELS, loaded

ROOT = Path(__file__).resolve().parent.parent

DOC = "notes.md"


@pytest.fixture(autouse=True)
def work_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding a document, with no ``.env`` and no ``RALPH_`` setting around."""
    work = tmp_path / "work"
    work.mkdir()
    (work / DOC).write_text("The filters are backwashed every 48 hours.\n", encoding="utf-8")
    monkeypatch.chdir(work)
    for name in ("RALPH_OUT_DIR", "OUT_DIR", "RALPH_MAX_ITERS", "MAX_ITERS", "RALPH_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    return work


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each time the app was opened, with what: ``run_app``'s arguments."""
    calls: list[dict[str, Any]] = []

    def run_app(demo: bool = False, start: AppStart | None = None) -> int:
        calls.append({"demo": demo, "start": start})
        return 0

    monkeypatch.setattr(ralph_tui.tui.app, "run_app", run_app)
    return calls


def started(argv: list[str], opened: list[dict[str, Any]]) -> AppStart:
    assert main(argv) == 0
    assert len(opened) == 1
    start = opened[0]["start"]
    assert isinstance(start, AppStart)
    return start


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``argv`` is refused with (exit 2, nothing on stdout)."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    return captured.err.strip()


def test_the_out_dir_and_settings_flags_reach_the_app(
    tmp_path: Path, opened: list[dict[str, Any]]
) -> None:
    out = tmp_path / "elsewhere"
    start = started(["--out", str(out), "--maxIters", "2", "--provider", "offline"], opened)
    assert Path(start.settings.out_dir) == out
    assert start.settings.max_iters == 2 and start.settings.provider == "offline"
    assert start.form == FormFill(provider="offline")
    assert opened[0]["demo"] is False


def test_flags_override_the_environment_and_the_env_file(
    tmp_path: Path, work_dir: Path, monkeypatch: pytest.MonkeyPatch, opened: list[dict[str, Any]]
) -> None:
    monkeypatch.setenv("RALPH_MAX_ITERS", "5")
    (work_dir / ".env").write_text(f"RALPH_OUT_DIR={tmp_path / 'from-env-file'}\n")
    start = started(["--maxIters", "3", "--out", str(tmp_path / "from-flag")], opened)
    assert start.settings.max_iters == 3
    assert Path(start.settings.out_dir) == tmp_path / "from-flag"
    # Without the flags, the environment and .env hold, as for `run`.
    opened.clear()
    start = started(["--provider", "offline"], opened)
    assert start.settings.max_iters == 5
    assert Path(start.settings.out_dir) == tmp_path / "from-env-file"


def test_documents_query_and_mode_fill_the_form(opened: list[dict[str, Any]]) -> None:
    start = started([DOC, "--query", "How often?", "--mode", "task", "--doc", "."], opened)
    assert start.form == FormFill(
        mode="task", query="How often?", docs=(Path(DOC), Path(".")), decompose=False
    )
    opened.clear()
    assert started([DOC, "--provider", "offline"], opened).form.provider == "offline"


def test_options_and_documents_may_come_in_any_order(opened: list[dict[str, Any]]) -> None:
    (Path.cwd() / "more.md").write_text("More.\n")
    start = started(["--mode", "qa", DOC, "--maxIters", "1", "more.md"], opened)
    assert start.form.docs == (Path(DOC), Path("more.md"))
    assert start.form.mode == "qa" and start.settings.max_iters == 1


def test_decompose_alone_means_task_mode(opened: list[dict[str, Any]]) -> None:
    start = started([DOC, "--decompose"], opened)
    assert start.form.mode == "task" and start.form.decompose


def test_a_document_named_like_a_command_after_dashes_or_as_a_path(
    work_dir: Path, opened: list[dict[str, Any]]
) -> None:
    (work_dir / "run").write_text("A document called run.\n")
    assert started(["--", "run"], opened).form.docs == (Path("run"),)
    opened.clear()
    assert started(["./run"], opened).form.docs == (Path("run"),)


def test_a_command_is_still_the_first_word(
    opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", "list", "--json"]) == 0
    json.loads(capsys.readouterr().out)  # the subcommand's answer
    assert opened == []
    assert main(["demo"]) == 0
    assert opened == [{"demo": True, "start": None}]


def test_help_lists_the_app_arguments_and_every_command_without_opening_it(
    opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--help"]) == 0
    shown = capsys.readouterr().out
    assert "usage: ralph-tui [-h]" in shown and "[DOC ...]" in shown
    assert "--query" in shown and "--mode {qa,task}" in shown and "--out DIR" in shown
    assert "ralph-tui run --help" in shown and "./NAME" in shown
    assert all(f"\n  {name} " in shown for name in ("demo", *COMMANDS))
    # Asked for anywhere before `--`, and even after other flags, help is all that happens.
    assert main(["--out", "x", DOC, "-h"]) == 0
    assert "usage: ralph-tui" in capsys.readouterr().out
    assert opened == []


def run_refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What ``ralph-tui run`` says of the same input, without its program name."""
    assert main(["run", *argv]) == 2
    return message_of(capsys.readouterr().err.strip())


def message_of(line: str) -> str:
    """The error's own words: past ``PROG: error:``, before ``(see PROG --help)``."""
    return line.partition(" error: ")[2].split(" (see ralph-tui")[0]


@pytest.mark.parametrize(
    "flags",
    [
        ["--maxIters", "0"],
        ["--maxIters", "many"],
        ["--inner", "sideways"],
        ["--mode", "chat"],
        ["--out", "/proc/no/such/dir"],
        ["--provider"],
    ],
)
def test_a_bad_value_is_refused_as_run_refuses_it_before_the_app_opens(
    flags: list[str], opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused([DOC, *flags], capsys)
    assert line.startswith("ralph-tui: error: ")
    assert message_of(line) == run_refusal(["--query", "q", "--doc", DOC, *flags], capsys)
    assert opened == []


def test_a_missing_document_is_refused_as_run_refuses_it(
    opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    line = refused(["missing.md", "--out", str(out)], capsys)
    assert line == "ralph-tui: error: document not found: missing.md (check the path)"
    args = ["--query", "q", "--doc", "missing.md", "--provider", "offline", "--out", str(out)]
    assert message_of(line) == run_refusal(args, capsys)
    assert "no file matches" in refused(["nothing-*.md"], capsys)
    assert opened == [] and not out.exists()


def test_a_mistyped_command_is_pointed_to(
    opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["sesions", "list"], capsys)
    assert "document not found: sesions" in line
    assert "did you mean the command `ralph-tui sessions`?" in line
    assert opened == []


@pytest.mark.parametrize(
    "flags",
    [["--json"], ["--estimate"], ["--resume", "abc"], ["--rerun", "abc"], ["-v"],
     ["--report", "r.html"], ["--constraint", "be brief"]],
)  # fmt: skip
def test_a_flag_only_a_headless_run_uses_is_refused_in_one_line(
    flags: list[str], opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused([DOC, *flags], capsys)
    assert "is for `ralph-tui run` (a run on the command line), not the app" in line
    assert opened == []


def test_decompose_in_qa_mode_is_refused_as_run_refuses_it(
    opened: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused([DOC, "--mode", "qa", "--decompose"], capsys)
    args = ["--query", "q", "--doc", DOC, "--mode", "qa", "--decompose", "--provider", "offline"]
    assert message_of(line) == run_refusal(args, capsys)
    assert opened == []


START_PROGRAM = """
import json, sys
from ralph_tui.cli.app_start import AppStart, app_start
start = app_start(sys.argv[1:])
assert isinstance(start, AppStart), start
print(json.dumps(sorted(sys.modules)))
"""


def test_reading_the_command_line_loads_no_run_stack_nor_the_document_readers(
    work_dir: Path, tmp_path: Path
) -> None:
    """What the app's first paint waits for: the settings, not what a run loads (an existing
    document needs no reader to be checked)."""
    argv = [DOC, "--query", "q", "--out", str(tmp_path / "out"), "--maxIters", "2"]
    ran = subprocess.run(
        [sys.executable, "-c", START_PROGRAM, *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=work_dir,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    modules = json.loads(ran.stdout)
    assert "ralph_tui.config" in modules  # it did read the settings
    assert loaded(modules, (*COMMAND_LINE, *RUN_MODELS)) == []


def test_the_reference_documents_what_the_app_takes_and_nothing_it_refuses() -> None:
    from ralph_tui.cli.reference import cli_reference

    section = cli_reference().split("## `ralph-tui`\n")[1].split("\n## ")[0]
    assert "`DOC`" in section and "`--query`" in section and "`--decompose`" in section
    assert "[Output](settings.md#output) | `--out`" in section
    for flag in ("--json", "--estimate", "--resume", "--rerun", "--report", "--verbose"):
        assert f"`{flag}`" not in section, flag
