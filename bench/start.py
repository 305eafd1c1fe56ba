"""Benchmark how fast ralph-tui starts; prints one JSON object.

Each figure is the median of ``--runs`` with its baseline measured in the same run:

- ``help``: ``ralph-tui --help`` (``python -m ralph_tui --help``) from process start to
  exit, against ``python -c pass``; target at most 3 x the baseline + 100 ms. Each
  subcommand's ``--help`` is reported beside it (the slowest, and every one).
- ``first_paint``: ``ralph-tui`` and ``ralph-tui demo`` in a real terminal (a tmux pane,
  160 x 45) from starting the command until its first frame is on screen (the footer's
  keys and the question box's label), against a hello-world
  Textual app measured the same way until its text is; target at most 1.5 x the baseline.
  Beside them, the floor: the run screen's widgets built from stock Textual widgets alone
  (``bench/stock_first_screen.py``, no project code, no settings).
  ``whole_screen``: from starting the command until its screen is whole (everything
  composed and painted: the run screen writes the file ``RALPH_TUI_SCREEN_WHOLE_FILE``
  names then, and so does the floor); target at most the floor's.
  ``typed_at_start``: in each run of the app, ``zebra`` typed 0.1 s after the start;
  how many times it landed in the question box.
- ``sandbox``: ``Sandbox.start`` to the first cell's answer, against bwrap with the
  sandbox's own mounts starting a bare interpreter (``-I -S -c pass``); target at most
  1.5 x the baseline.

    .venv/bin/python bench/start.py [--runs N] [--only help|first_paint|sandbox] [--before DIR]
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
from typing import Any, NamedTuple

from tmux_pane import APP_MARKER, PAINT_TIMEOUT_S, POLL_S, Tmux

from ralph_tui.cli.app import COMMANDS
from ralph_tui.sandbox import Sandbox
from ralph_tui.sandbox.launch import interpreter, plan_launch
from ralph_tui.sandbox.limits import SandboxLimits
from ralph_tui.sandbox.scratch import Scratch, create_scratch, remove_scratch
from ralph_tui.tui.screens.run_screen import SCREEN_WHOLE_FILE

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
TYPED, TYPE_AFTER_S, TYPED_TIMEOUT_S = "zebra", 0.1, 5.0
APP_FIRST_FRAME = (APP_MARKER, "Question or task")
"""The app's first frame, painted: the footer's keys and the question box's label, in the app
and the demo alike."""
FORM_COLUMNS = 38
"""The run form's width: the question box is within these columns."""


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


class Launch(NamedTuple):
    """One start of a program in a fresh pane."""

    paint_s: float
    """To its first paint: its marker on screen."""
    whole_s: float | None
    """To its screen being whole (the file ``SCREEN_WHOLE_FILE`` names written); ``None``
    for a program without that hook."""
    typed_landed: bool | None
    """Whether ``TYPED`` (sent ``TYPE_AFTER_S`` after the start) ended in the question box;
    ``None`` when nothing was typed."""


def wait_for_file(path: Path, timeout_s: float = PAINT_TIMEOUT_S) -> float:
    """``time.perf_counter`` when ``path`` was first seen to exist."""
    started = time.perf_counter()
    while not path.exists():
        if time.perf_counter() - started > timeout_s:
            raise TimeoutError(f"{path} was never written")
        time.sleep(POLL_S)
    return time.perf_counter()


def in_question_box(screen: str, text: str) -> bool:
    """Whether ``text`` shows in the run form's question box: in the form's column, within
    the few rows under the "Question or task" label."""
    lines = screen.splitlines()
    for row, line in enumerate(lines):
        if "Question or task" in line[:FORM_COLUMNS]:
            return any(text in below[:FORM_COLUMNS] for below in lines[row + 1 : row + 7])
    return False


def launch(
    tmux: Tmux,
    command: list[str],
    marker: str | tuple[str, ...],
    env: dict[str, str],
    whole: bool,
    type_: bool,
) -> Launch:
    """Start ``command`` in a new pane and time its first paint (and, with ``whole``, its
    screen being whole); with ``type_``, type ``TYPED`` ``TYPE_AFTER_S`` after the start
    and check where it landed."""
    with tempfile.TemporaryDirectory(prefix="ralph-bench-whole-") as temp:
        whole_file = Path(temp) / "whole"
        env = {**env, SCREEN_WHOLE_FILE: str(whole_file)} if whole else env
        started = time.perf_counter()
        with tmux.pane(command, env) as name:
            if type_:
                time.sleep(max(0.0, started + TYPE_AFTER_S - time.perf_counter()))
                tmux("send-keys", "-t", name, "-l", TYPED)
            paint_s = tmux.wait_for(name, marker).at - started
            whole_s = wait_for_file(whole_file) - started if whole else None
            landed = None
            if type_:
                deadline = time.perf_counter() + TYPED_TIMEOUT_S
                while not (landed := in_question_box(tmux.screen(name), TYPED)):
                    if time.perf_counter() > deadline:
                        break
                    time.sleep(0.05)
    return Launch(paint_s, whole_s, landed)


BEFORE_TREE: Path | None = None
"""``--before DIR``: another checkout of ralph-tui (the code before a change) whose app and
demo are measured in the same interleaved runs, as ``app_before`` and ``demo_before``."""


def first_paint_figures(runs: int) -> dict[str, Any]:
    """The app and the demo against a hello-world Textual app, each in a tmux pane, with the
    stock-widget floor beside them (and, with ``--before``, another tree's app and demo)."""
    with tempfile.TemporaryDirectory(prefix="ralph-bench-start-") as temp, Tmux() as tmux:
        env = {
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "RALPH_CONFIG_DIR": str(Path(temp) / "config"),
            "RALPH_OUT_DIR": str(Path(temp) / "out"),
            "TERM": "xterm-256color",
        }
        # name: command, marker, whether it writes the whole-screen file, whether keys are typed
        programs: dict[str, tuple[list[str], str | tuple[str, ...], bool, bool]] = {
            "hello_world": ([sys.executable, "-c", HELLO_WORLD], HELLO_MARKER, False, False),
            "app": ([sys.executable, "-m", "ralph_tui"], APP_FIRST_FRAME, True, True),
            "demo": ([sys.executable, "-m", "ralph_tui", "demo"], APP_FIRST_FRAME, True, False),
            "stock_first_screen": (
                [sys.executable, str(STOCK_FIRST_SCREEN)],
                APP_MARKER,
                True,
                False,
            ),
        }
        if BEFORE_TREE is not None:
            before = ["env", "-C", str(BEFORE_TREE), f"PYTHONPATH={BEFORE_TREE}"]
            before += [sys.executable, "-m", "ralph_tui"]
            programs["app_before"] = (before, APP_FIRST_FRAME, True, True)
            programs["demo_before"] = ([*before, "demo"], APP_FIRST_FRAME, True, False)
        for program in programs.values():
            launch(tmux, program[0], program[1], env, False, False)  # warm caches once each
        launches: dict[str, list[Launch]] = {name: [] for name in programs}
        for _ in range(runs):  # interleaved, so a busy moment hits all of them alike
            for name, (command, marker, whole, type_) in programs.items():
                launches[name].append(launch(tmux, command, marker, env, whole, type_))
    paint = {name: [one.paint_s for one in done] for name, done in launches.items()}
    whole = {
        name: [one.whole_s for one in done if one.whole_s is not None]
        for name, done in launches.items()
        if programs[name][2]
    }
    baseline = median_ms(paint["hello_world"])
    floor = median_ms(whole["stock_first_screen"])
    figures: dict[str, Any] = {f"{name}_median_ms": median_ms(s) for name, s in paint.items()}
    figures["target_ms"] = round(PAINT_FACTOR * baseline, 1)
    figures["ratio_to_hello_world"] = {
        name: round(median_ms(paint[name]) / baseline, 2) for name in programs
    }
    apps = [name for name in programs if name.startswith(("app", "demo"))]
    figures["meets_target"] = {
        name: median_ms(paint[name]) <= PAINT_FACTOR * baseline for name in apps
    }
    figures["whole_screen"] = {
        **{f"{name}_median_ms": median_ms(s) for name, s in whole.items()},
        "target_ms": floor,
        "meets_target": {name: median_ms(whole[name]) <= floor for name in apps},
    }
    figures["typed_at_start"] = {"typed_after_s": TYPE_AFTER_S}
    for name in (name for name in programs if programs[name][3]):
        typed = [one.typed_landed for one in launches[name] if one.typed_landed is not None]
        figures["typed_at_start"][name] = {
            "landed_in_question_box": sum(typed),
            "runs": len(typed),
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
    parser.add_argument("--before", type=Path, help="another checkout to measure beside")
    args = parser.parse_args()
    global BEFORE_TREE
    BEFORE_TREE = args.before.resolve() if args.before else None
    figures = {name: FIGURES[name](args.runs) for name in args.only or FIGURES}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
