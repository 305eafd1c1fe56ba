"""Count the instructions ralph-tui's start takes, with valgrind's callgrind: a figure the
machine's load does not move (``bench/start.py`` times the same moments on the clock).

Each program runs in a real terminal (a tmux pane, 160 x 45, as ``bench/start.py``) under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``, and is stopped by
``bench/stop_at.py`` at the moment measured; the count is every instruction of the process
(interpreter start, imports, compose, styles, rendering; all threads) until then.

- ``first_frame``: until the first frame is written (the footer's ``Help`` and the question
  box's label, as ``bench/start.py`` waits for): the hello-world Textual app (until its text
  is), the first frame's stock widgets alone (``bench/stock_first_frame.py``), and the app.
  Target: the app at most 1.5 x hello-world.
- ``whole_screen``: until the screen is whole (the file ``RALPH_TUI_SCREEN_WHOLE_FILE``
  names is written): the stock-widget floor (``bench/stock_first_screen.py``) and the app.
  Target: the app at most the floor.

With ``--before DIR`` (another checkout: the code before a change) its app is counted too.

    .venv/bin/python bench/start_instructions.py [--runs N] [--before DIR]

Prints one JSON object; each count is the median of ``--runs`` (callgrind's counts vary by
a fraction of a percent from run to run: timers, the terminal's answers).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from start import HELLO_MARKER, HELLO_WORLD, PAINT_FACTOR, STOCK_FIRST_SCREEN
from tmux_pane import Tmux

ROOT = Path(__file__).resolve().parents[1]
STOP_AT = ROOT / "bench" / "stop_at.py"
STOCK_FIRST_FRAME = ROOT / "bench" / "stock_first_frame.py"
APP_FIRST_FRAME = "Help|Question or task"
"""The app's first frame, as ``bench/stop_at.py`` looks for it in what is written: the
footer's ``Help`` and the question box's label."""
RUN_TIMEOUT_S = 900.0
WHOLE_FILE = "RALPH_TUI_SCREEN_WHOLE_FILE"


class Program(NamedTuple):
    moment: str
    """``bench/stop_at.py``'s moment: texts written, or ``whole``."""
    command: list[str]
    """``-m MODULE``, ``-c CODE`` or a script, with its arguments."""
    tree: Path = ROOT
    """The checkout it runs from (``PYTHONPATH`` and working folder)."""


def programs(before: Path | None) -> dict[str, dict[str, Program]]:
    """What is counted, by moment and name."""
    first_frame = {
        "hello_world": Program(HELLO_MARKER, ["-c", HELLO_WORLD]),
        "stock_first_frame": Program(APP_FIRST_FRAME, [str(STOCK_FIRST_FRAME)]),
        "app": Program(APP_FIRST_FRAME, ["-m", "ralph_tui"]),
    }
    whole_screen = {
        "stock_floor": Program("whole", [str(STOCK_FIRST_SCREEN)]),
        "app": Program("whole", ["-m", "ralph_tui"]),
    }
    if before is not None:
        first_frame["app_before"] = Program(APP_FIRST_FRAME, ["-m", "ralph_tui"], before)
        whole_screen["app_before"] = Program("whole", ["-m", "ralph_tui"], before)
    return {"first_frame": first_frame, "whole_screen": whole_screen}


def count(tmux: Tmux, program: Program, env: dict[str, str], valgrind: bool = True) -> int:
    """Run ``program`` in a new pane until its moment; the instructions it took (0 without
    ``valgrind``: a run that only warms the byte-code files and the page cache)."""
    with tempfile.TemporaryDirectory(prefix="ralph-bench-callgrind-") as temp:
        out, done = Path(temp) / "callgrind.out", Path(temp) / "done"
        command = [sys.executable, str(STOP_AT), program.moment, "exit", *program.command]
        if valgrind:
            tool = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--"]
            command = [*tool, *command]
        line = f"{shlex.join(command)} 2>/dev/null; echo $? > {shlex.quote(str(done))}"
        env = {**env, "PYTHONPATH": str(program.tree), WHOLE_FILE: str(Path(temp) / "whole")}
        started = time.monotonic()
        with tmux.pane(["env", "-C", str(program.tree), "sh", "-c", line], env):
            while not done.exists():
                if time.monotonic() - started > RUN_TIMEOUT_S:
                    raise TimeoutError(f"{program} did not reach its moment")
                time.sleep(0.2)
            time.sleep(0.05)  # the shell has written the status, and closes the file
        status = done.read_text().strip()
        if status != "0":
            raise RuntimeError(f"{program} ended with status {status}")
        return total_instructions(out) if valgrind else 0


def total_instructions(out: Path) -> int:
    """The instructions a callgrind output file counts (its ``totals:`` or ``summary:``)."""
    for line in out.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise ValueError(f"no total in {out}")


def figures(runs: int, before: Path | None) -> dict[str, object]:
    counted = programs(before)
    with tempfile.TemporaryDirectory(prefix="ralph-bench-start-") as temp, Tmux() as tmux:
        env = {
            "PYTHONHASHSEED": "0",
            "RALPH_CONFIG_DIR": str(Path(temp) / "config"),
            "RALPH_OUT_DIR": str(Path(temp) / "out"),
            "TERM": "xterm-256color",
        }
        for moment in counted.values():
            for program in moment.values():
                count(tmux, program, env, valgrind=False)  # byte code and caches warm
        samples: dict[str, dict[str, list[int]]] = {
            moment: {name: [] for name in programs_} for moment, programs_ in counted.items()
        }
        for _ in range(runs):
            for moment, programs_ in counted.items():
                for name, program in programs_.items():
                    samples[moment][name].append(count(tmux, program, env))
    median = {
        moment: {name: int(statistics.median(s)) for name, s in by_name.items()}
        for moment, by_name in samples.items()
    }
    first, whole = median["first_frame"], median["whole_screen"]
    apps = [name for name in first if name.startswith("app")]
    return {
        "what": "instructions (valgrind callgrind, PYTHONHASHSEED=0) from process start "
        "to the first frame written and to the whole screen, in a 160 x 45 tmux pane; "
        f"median of {runs}",
        "first_frame": {
            **first,
            "ratio_to_hello_world": {
                name: round(first[name] / first["hello_world"], 2)
                for name in first
                if name != "hello_world"
            },
            "target": f"app <= {PAINT_FACTOR} x hello_world",
            "meets_target": {
                name: first[name] <= PAINT_FACTOR * first["hello_world"] for name in apps
            },
        },
        "whole_screen": {
            **whole,
            "ratio_to_stock_floor": {
                name: round(whole[name] / whole["stock_floor"], 2)
                for name in whole
                if name != "stock_floor"
            },
            "target": "app <= stock_floor",
            "meets_target": {name: whole[name] <= whole["stock_floor"] for name in apps},
        },
        "samples": samples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another checkout to count beside")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    before = args.before.resolve() if args.before else None
    print(json.dumps(figures(args.runs, before), indent=2))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
