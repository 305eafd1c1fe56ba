"""Fixtures for the TUI tests: isolated config and out dirs, settings without keys, an app."""

from __future__ import annotations

import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from ralph_tui.config import Settings, load_settings
from ralph_tui.sample import sample_document
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.run_handle import Runner, real_runner
from tests.tui.scripted import DOC_NAME, write_fixture_sessions

KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_APIKEY",
    "OPENAI_API_KEY",
    "OPENAI_APIKEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
)


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No keys, a private config dir, UTC clock, a work dir holding the sample document."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RALPH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(sample_document(), work / DOC_NAME)
    monkeypatch.chdir(work)
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path / "out"


@pytest.fixture
def settings(out_dir: Path) -> Settings:
    return load_settings({"out_dir": out_dir}, env_file=Path("/nonexistent/.env"))


@pytest.fixture
def fixture_sessions(out_dir: Path) -> dict[str, str]:
    return write_fixture_sessions(out_dir)


MakeApp = Callable[..., RalphApp]


def opened_whole(app: RalphApp) -> RalphApp:
    """``app``, whose ``run_test`` hands over the pilot once the run screen has built what
    its first frame left out (as a person sees it a moment after start): tests may query
    and fill the whole form at once. The first frame's own tests look before that."""
    run_test = app.run_test

    @asynccontextmanager
    async def run_whole(*args: Any, **kwargs: Any) -> AsyncIterator[Pilot[Any]]:
        async with run_test(*args, **kwargs) as pilot:
            await run_screen_whole(pilot)
            yield pilot

    app.run_test = run_whole  # type: ignore[method-assign]
    return app


@pytest.fixture
def make_app(settings: Settings, tmp_path: Path) -> MakeApp:
    def make(runner: Runner = real_runner, **kwargs: Any) -> RalphApp:
        app = RalphApp(settings, runner=runner, config_path=tmp_path / "config", **kwargs)
        return opened_whole(app)

    return make


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until ``condition()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


WaitFor = Callable[[Pilot[Any], Callable[[], bool]], Awaitable[None]]


async def run_screen_whole(pilot: Pilot[Any]) -> None:
    """Let the app run until the run screen has built what its first frame left out (the
    rest of the form, the monitor's panes)."""
    from ralph_tui.tui.screens.run_screen import RunScreen

    for screen in pilot.app.screen_stack:
        if isinstance(screen, RunScreen):
            await wait_for(pilot, lambda screen=screen: screen.whole)
