"""Benchmark how fast ralph-tui starts; prints one JSON object.

Each figure is the median of ``--runs`` with its baseline measured in the same run:

- ``help``: ``ralph-tui --help`` (``python -m ralph_tui --help``) from process start to
  exit, against ``python -c pass``; target at most 3 x the baseline + 100 ms. Each
  subcommand's ``--help`` is reported beside it (the slowest, and every one).
- ``first_paint``: ``ralph-tui`` and ``ralph-tui demo`` in a real terminal (a tmux pane,
  160 x 45) from starting the command until its footer is on screen, against a hello-world
  Textual app measured the same way until its text is; target at most 1.5 x the baseline.
  Beside them, the floor: the run screen's widgets built from stock Textual widgets alone
  (``bench/stock_first_screen.py``, no project code, no settings).
- ``sandbox``: ``Sandbox.start`` to the first cell's answer, against bwrap with the
  sandbox's own mounts starting a bare interpreter (``-I -S -c pass``); target at most
  1.5 x the baseline.

    .venv/bin/python bench/start.py [--runs N] [--only help|first_paint|sandbox]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tmux_pane import APP_MARKER, Tmux

from ralph_tui.cli.app import COMMANDS
from ralph_tui.sandbox import Sandbox
from ralph_tui.sandbox.launch import interpreter, plan_launch
from ralph_tui.sandbox.limits import SandboxLimits
from ralph_tui.sandbox.scratch import Scratch, create_scratch, remove_scratch

ROOT = Path(__file__).resolve().parents[1]
HELP_FACTOR, HELP_EXTRA_MS = 3.0, 100.0
PAINT_FACTOR = 1.5
SANDBOX_FACTOR = 1.5
HELLO_WORLD = """
from textual.app import App
from textual.widgets import Static

class Hello(App[None]):
    def compose(self):
        yield Static("Hello, world")

Hello().run()
"""
HELLO_MARKER = "Hello, world"
STOCK_FIRST_SCREEN = ROOT / "bench" / "stock_first_screen.py"


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def wall_s(command: list[str]) -> float:
    """Seconds from starting ``command`` to its exit (it must succeed)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    return time.perf_counter() - started


def help_figures(runs: int) -> dict[str, Any]:
    """``--help`` of the command and of each subcommand, against ``python -c pass``."""
    python = [sys.executable]
    wall_s([*python, "-m", "ralph_tui", "--help"])  # byte-code files and page cache warm
    baseline, top = [], []
    for _ in range(runs):
        baseline.append(wall_s([*python, "-c", "pass"]))
        top.append(wall_s([*python, "-m", "ralph_tui", "--help"]))
    subcommands = {
        name: median_ms([wall_s([*python, "-m", "ralph_tui", name, "--help"]) for _ in range(runs)])
        for name in sorted(COMMANDS)
    }
    target_ms = HELP_FACTOR * median_ms(baseline) + HELP_EXTRA_MS
    return {
        "help_median_ms": median_ms(top),
        "baseline_python_c_pass_median_ms": median_ms(baseline),
        "target_ms": round(target_ms, 1),
        "meets_target": median_ms(top) <= target_ms,
        "slowest_subcommand_help_ms": max(subcommands.values()),
        "subcommand_help_median_ms": subcommands,
    }


def first_paint_figures(runs: int) -> dict[str, Any]:
    """The app and the demo against a hello-world Textual app, each in a tmux pane."""
    with tempfile.TemporaryDirectory(prefix="ralph-bench-start-") as temp, Tmux() as tmux:
        env = {
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "RALPH_CONFIG_DIR": str(Path(temp) / "config"),
            "RALPH_OUT_DIR": str(Path(temp) / "out"),
            "TERM": "xterm-256color",
        }
        programs: dict[str, tuple[list[str], str]] = {
            "hello_world": ([sys.executable, "-c", HELLO_WORLD], HELLO_MARKER),
            "app": ([sys.executable, "-m", "ralph_tui"], APP_MARKER),
            "demo": ([sys.executable, "-m", "ralph_tui", "demo"], APP_MARKER),
            "stock_first_screen": ([sys.executable, str(STOCK_FIRST_SCREEN)], APP_MARKER),
        }
        for command, marker in programs.values():
            tmux.seconds_to_show(command, marker, env)  # warm caches once each
        samples: dict[str, list[float]] = {name: [] for name in programs}
        for _ in range(runs):  # interleaved, so a busy moment hits all three alike
            for name, (command, marker) in programs.items():
                samples[name].append(tmux.seconds_to_show(command, marker, env))
    baseline = median_ms(samples["hello_world"])
    figures: dict[str, Any] = {f"{name}_median_ms": median_ms(s) for name, s in samples.items()}
    figures["target_ms"] = round(PAINT_FACTOR * baseline, 1)
    figures["ratio_to_hello_world"] = {
        name: round(median_ms(samples[name]) / baseline, 2) for name in programs
    }
    figures["meets_target"] = {
        name: median_ms(samples[name]) <= PAINT_FACTOR * baseline for name in ("app", "demo")
    }
    return figures


def bare_bwrap(scratch: Scratch) -> Callable[[], float]:
    """bwrap as the sandbox runs it (same options and mounts) starting a bare interpreter;
    returns the seconds one start takes."""
    plan = plan_launch("bwrap", scratch, SandboxLimits())
    command = [*plan.argv[: plan.argv.index("--") + 1], interpreter(), "-I", "-S", "-c", "pass"]

    def start() -> float:
        started = time.perf_counter()
        subprocess.run(command, check=True, env=plan.env, capture_output=True)
        return time.perf_counter() - started

    return start


async def sandbox_start_s() -> float:
    started = time.perf_counter()
    sandbox = await Sandbox.start()
    try:
        result = await sandbox.execute("1")
        elapsed = time.perf_counter() - started
        assert result.output == "1\n" and sandbox.isolation == "bwrap", (result, sandbox.isolation)
    finally:
        await sandbox.close()
    return elapsed


def sandbox_figures(runs: int) -> dict[str, Any]:
    """``Sandbox.start`` to the first answer against bwrap starting a bare interpreter."""
    scratch = create_scratch()
    try:
        measure: dict[str, Callable[[], float]] = {
            "sandbox": lambda: asyncio.run(sandbox_start_s()),
            "bare_bwrap": bare_bwrap(scratch),
        }
        for action in measure.values():
            action()  # warm caches once each
        samples: dict[str, list[float]] = {name: [] for name in measure}
        for _ in range(runs):  # interleaved, so a busy moment hits both alike
            for name, action in measure.items():
                samples[name].append(action())
    finally:
        remove_scratch(str(scratch.root), scratch.lock_fd)
    baseline = median_ms(samples["bare_bwrap"])
    return {
        "start_to_first_answer_median_ms": median_ms(samples["sandbox"]),
        "baseline_bwrap_bare_interpreter_median_ms": baseline,
        "target_ms": round(SANDBOX_FACTOR * baseline, 1),
        "meets_target": median_ms(samples["sandbox"]) <= SANDBOX_FACTOR * baseline,
    }


FIGURES: dict[str, Callable[[int], dict[str, Any]]] = {
    "help": help_figures,
    "first_paint": first_paint_figures,
    "sandbox": sandbox_figures,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=sorted(FIGURES), action="append")
    args = parser.parse_args()
    figures = {name: FIGURES[name](args.runs) for name in args.only or FIGURES}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
