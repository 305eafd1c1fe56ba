"""The demo's sample is reachable however ralph-tui was installed: ``demo --headless`` runs
the sample question over the bundled document, from any folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.main import main
from ralph_tui.sample import SAMPLE_QUESTION, sample_document


def test_demo_headless_runs_the_sample_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no clone here: the sample comes from the package
    code = main(["demo", "--headless", "--json", "--out", str(tmp_path / "out"), "--maxIters", "1"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert result["status"] == "passed"
    assert "48 hours" in result["output"]["answer"]
    assert "2.1 metres" in result["output"]["answer"]
    record = json.loads(
        (tmp_path / "out" / "sessions" / result["sessionId"] / "session.json").read_text()
    )
    assert record["query"] == SAMPLE_QUESTION


def test_the_sample_document_ships_inside_the_package() -> None:
    path = sample_document()
    assert path.is_file()
    assert "ralph_tui" in path.parts
