"""``ralph-tui`` with no arguments paints its first frame, then reads its settings (from the
environment and ``.env``): the form's rest is filled from them, and a bad one closes the app
with one line and exit code 2, as it did when they were read before the app opened.
(That nothing of the settings loads before the first frame: ``tests/test_start_path.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input

from ralph_tui.tui.app import RalphApp, run_app
from ralph_tui.tui.screens.run_screen import RunScreen
from tests.tui.conftest import run_screen_whole


async def test_the_form_is_filled_from_the_settings_read_after_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_MAX_ITERS", "7")
    monkeypatch.setenv("RALPH_OUT_DIR", str(tmp_path / "out"))
    app = RalphApp(config_path=tmp_path / "config")
    async with app.run_test(size=(160, 45)) as pilot:
        await run_screen_whole(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        assert screen.form.query_one("#max-iters", Input).value == "7"
        assert screen.form.query("#keys-warning")  # no key in the environment
        assert app.context.out_dir == tmp_path / "out"


def test_a_bad_setting_closes_the_app_with_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RALPH_MAX_ITERS", "many")
    monkeypatch.setattr(RalphApp, "run", lambda app: App.run(app, headless=True))
    assert run_app() == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ralph-tui: ")
    assert "RALPH_MAX_ITERS" in lines[0]
