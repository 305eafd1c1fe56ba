"""Run a Textual program and stop it at a moment of its start, for counting (or seeing) the
work done until then: ``bench/start_instructions.py`` runs this under callgrind.

    python bench/stop_at.py TEXT[|TEXT...]|whole exit|hold (-m MODULE | -c CODE | SCRIPT) [ARG ...]

- ``TEXT|TEXT``: each text has been written to the terminal (its first frame as the tmux
  bench sees it: ``f1 Help`` in the footer, the question box's label). The texts are
  looked for in what the program writes, so pick ones that are written in one piece
  (``Help`` rather than ``f1 Help``, whose key and description are styled apart).
- ``whole``: the program writes the file ``RALPH_TUI_SCREEN_WHOLE_FILE`` names (the run
  screen, and ``bench/stock_first_screen.py``, do once the whole screen is composed and
  painted); this sets that variable when it is not set.

``exit`` ends the process there (``os._exit``: nothing after that moment is counted);
``hold`` stops the program's event loop there for a minute, so what the terminal shows at
that moment can be looked at (``tmux capture-pane``).

Only ``os``, ``sys``, ``runpy``, ``tempfile`` and ``time`` are imported before the
program, and Textual's Linux driver (which every Textual program here imports), so the count is the
program's.
"""

from __future__ import annotations

import os
import runpy
import sys
import tempfile
import time

WHOLE_FILE = "RALPH_TUI_SCREEN_WHOLE_FILE"
HOLD_S = 60.0


def stop(how: str) -> None:
    if how == "hold":
        time.sleep(HOLD_S)
    os._exit(0)


def stop_at_text(how: str, texts: list[str]) -> None:
    """Stop the program once everything in ``texts`` has been written to the terminal (each
    in some write: a frame, or a later frame's update), as a person would see it."""
    from textual.drivers.linux_driver import LinuxDriver

    write = LinuxDriver.write
    unseen = set(texts)

    def write_then_stop(driver: LinuxDriver, data: str) -> None:
        write(driver, data)
        unseen.difference_update([text for text in unseen if text in data])
        if not unseen:
            stop(how)

    LinuxDriver.write = write_then_stop  # type: ignore[method-assign]


def stop_at_whole(how: str) -> None:
    """Stop the program as it opens the screen-whole file for writing."""
    path = os.environ.get(WHOLE_FILE)
    if not path:
        path = os.path.join(tempfile.mkdtemp(prefix="ralph-stop-at-"), "whole")
        os.environ[WHOLE_FILE] = path

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and args[0] == path:
            stop(how)

    sys.addaudithook(hook)


def main(argv: list[str]) -> None:
    moment, how, *program = argv
    if not moment or how not in ("exit", "hold") or not program:
        raise SystemExit(__doc__)
    if moment == "whole":
        stop_at_whole(how)
    else:
        stop_at_text(how, moment.split("|"))
    if program[0] == "-m":
        sys.argv = [program[1], *program[2:]]
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
    elif program[0] == "-c":
        sys.argv = ["-c", *program[2:]]
        exec(compile(program[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = program
        runpy.run_path(program[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
