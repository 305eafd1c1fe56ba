"""A private tmux server whose panes are the terminals the benchmarks measure in: what a
user sees, read back with ``capture-pane``. Shared by ``start.py`` (first paint) and
``streaming.py`` (a streamed turn on screen)."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PANE = ("160", "45")
APP_MARKER = "f1 Help"
"""Footer text of the app's first screen: painted once the whole screen is."""
POLL_S = 0.002
PAINT_TIMEOUT_S = 30.0
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"


class Shown(NamedTuple):
    """When a capture of the screen first showed a marker."""

    at: float
    """``time.perf_counter`` when that capture returned."""
    gap_s: float
    """Since the previous capture (which did not show it) was asked for: the marker came
    on screen within this long before ``at``."""


class Tmux:
    """A private tmux server (its own socket) whose panes are the terminals measured."""

    def __init__(self) -> None:
        self.socket = f"ralph-bench-{os.getpid()}"
        self.count = 0

    def __call__(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check
        )
        return done.stdout

    def __enter__(self) -> Tmux:
        # A resident session keeps the server up, so each measurement starts only a pane.
        self("new-session", "-d", "-s", "resident", "-x", PANE[0], "-y", PANE[1])
        return self

    def __exit__(self, *exc: object) -> None:
        self("kill-server", check=False)

    @contextmanager
    def pane(self, command: list[str], env: dict[str, str]) -> Iterator[str]:
        """``command`` running in a new pane of ``PANE``'s size (its session's name given),
        killed on leaving."""
        self.count += 1
        name = f"measure-{self.count}"
        # Byte code cached as a user's install has it, even if this shell says not to write it
        # (tmux panes inherit the environment that started the server): without it the
        # project's modules were compiled from source at every start measured.
        line = shlex.join(
            ["env", "-u", NO_BYTECODE, *(f"{k}={v}" for k, v in env.items()), *command]
        )
        self("new-session", "-d", "-s", name, "-x", PANE[0], "-y", PANE[1], "-c", str(ROOT), line)
        try:
            yield name
        finally:
            self("kill-session", "-t", name, check=False)

    def screen(self, name: str) -> str:
        """The text on ``name``'s screen now."""
        return self("capture-pane", "-p", "-t", name, check=False)

    def wait_for(
        self, name: str, marker: str | tuple[str, ...], timeout_s: float = PAINT_TIMEOUT_S
    ) -> Shown:
        """Poll ``name``'s screen every ``POLL_S`` until ``marker`` is on it (each of them,
        given several)."""
        markers = (marker,) if isinstance(marker, str) else marker
        started = time.perf_counter()
        asked = started
        while True:
            previous, asked = asked, time.perf_counter()
            screen = self.screen(name)
            if all(one in screen for one in markers):
                at = time.perf_counter()
                return Shown(at=at, gap_s=at - previous)
            if asked - started > timeout_s:
                raise TimeoutError(f"{marker!r} never appeared on {name}'s screen:\n{screen}")
            time.sleep(POLL_S)

    def seconds_to_show(
        self, command: list[str], marker: str | tuple[str, ...], env: dict[str, str]
    ) -> float:
        """Seconds from starting ``command`` in a new pane until ``marker`` is on screen."""
        started = time.perf_counter()
        with self.pane(command, env) as name:
            return self.wait_for(name, marker).at - started
