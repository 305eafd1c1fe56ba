"""``ralph-tui doctor``: real checks, one line each, exit 1 on a fail, keys never printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli

pytestmark = pytest.mark.usefixtures("clean_env")


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, dict[str, str]]]:
    code = run_cli(["doctor", "--json", *args])
    return code, {check["name"]: check for check in json.loads(capsys.readouterr().out)}


def test_offline_everything_checks_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = doctor(capsys, "--provider", "offline", "--online", "--out", str(tmp_path))
    assert code == 0, checks
    assert {"python", "sandbox", "keys", "html converter", "docx converter", "pdf converter",
            "out dir", "ray", "generate call", "validate call"} <= set(checks)  # fmt: skip
    assert checks["sandbox"]["status"] in ("ok", "warn")
    assert checks["generate call"]["detail"] == "offline:offline-generate answered"
    assert not list(tmp_path.iterdir()), "the out dir check leaves nothing behind"


def test_a_missing_key_fails_with_the_fix_and_a_set_key_is_never_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    code, checks = doctor(capsys)
    assert code == 1
    assert checks["anthropic key"]["status"] == "fail"
    assert "ANTHROPIC_API_KEY" in checks["anthropic key"]["fix"]
    assert checks["openai key"] == {
        "name": "openai key", "status": "ok", "detail": "key set", "fix": ""
    }  # fmt: skip
    assert run_cli(["doctor"]) == 1
    text = capsys.readouterr().out
    assert "sk-very-secret" not in text and "FAIL  anthropic key" in text


def test_an_out_dir_that_cannot_be_written_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, checks = doctor(capsys, "--provider", "offline", "--out", str(blocker / "out"))
    assert code == 1 and checks["out dir"]["status"] == "fail"
    assert "is a file" in checks["out dir"]["detail"]
