"""Entry point of the ``ralph-tui`` command: a subcommand when the first word names one
(``demo --headless``: the demo's run on the command line), else the app — with no arguments
at once, or with its run form and settings read from the command line first
(``ralph_tui.cli.app_start``).

Whatever stops the command early ends it with one line, never a traceback: Ctrl-C while it
is still starting (exit 130), SIGTERM (exit 143, handled like Ctrl-C), and a reader that
went away (``| head``: quietly, exit 141).
"""

from __future__ import annotations

import gc
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args == ["demo"]:
        # The collector stays off until the app has painted (its warm-up turns it back on):
        # start-up only builds what lives as long as the app, and the full collections it
        # set off while importing and composing took a tenth of the time to the first paint.
        gc.disable()
        from ralph_tui.tui.app import run_app

        return run_app(demo=bool(args))
    if args[:1] == ["demo"] and "--headless" in args:
        from ralph_tui.sample import headless_demo_arguments

        args = headless_demo_arguments([a for a in args[1:] if a != "--headless"])
    try:
        from ralph_tui.cli.commands import COMMANDS, DEMO

        if args[0] not in (DEMO, *COMMANDS):
            return open_app(args)
        from ralph_tui.cli import run_cli
        from ralph_tui.cli.stopping import stop_on_sigterm

        stop_on_sigterm()
        return run_cli(args)
    except BrokenPipeError:
        return closed_pipe()
    except KeyboardInterrupt as stop:  # before the CLI could take it: while importing
        from ralph_tui.errors import as_ralph_error

        error = as_ralph_error(stop)
        print(f"ralph-tui: {error.one_line()}", file=sys.stderr)
        return int(error.exit_code)


def open_app(args: list[str]) -> int:
    """The app, its settings and run form from ``args`` (or ``--help``, or one line saying
    what is wrong, before it starts)."""
    from ralph_tui.cli.app_start import app_start

    start = app_start(args)
    if isinstance(start, int):
        return start
    gc.disable()  # as for the app with no arguments: on again after the first paint
    from ralph_tui.tui.app import run_app

    return run_app(start=start)


def closed_pipe() -> int:
    """The reader of stdout went away: stop quietly, as ``cat`` and ``grep`` do."""
    from ralph_tui.errors import ExitCode

    # What is still buffered cannot be written: point stdout at /dev/null so the
    # interpreter's last flush does not complain.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return int(ExitCode.CLOSED_PIPE)


if __name__ == "__main__":
    raise SystemExit(main())
