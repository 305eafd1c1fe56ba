"""Command-line interface: argument parsing and the one place errors become exits.

Exit codes are ``ralph_tui.errors.ExitCode``: a run's from its status
(``EXIT_CODE_OF_STATUS``), an error's from its kind. Every error that ends a command is
rendered here, once, by ``report_error``: one line on stderr (never a traceback) and, with
``--json``, one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable
from typing import NoReturn

from ralph_tui.cli.commands import COMMANDS, DEMO, DEMO_HELP
from ralph_tui.cli.reporting import report_error
from ralph_tui.errors import ExitCode, as_ralph_error
from ralph_tui.version import __version__

ABOUT = "Grounded, evidence-backed document analysis with LLMs."
"""What ``ralph-tui`` is, as its help says first."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr and exit code 2, with the closest
    flag suggested for an unknown one."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}{self._suggestion(message)}"
                  f" (see {self.prog} --help)\n")  # fmt: skip

    def _suggestion(self, message: str) -> str:
        unknown = re.findall(r"(--?[\w-]+)", message.partition("unrecognized arguments:")[2])
        known = sorted(known_flags(self))
        close = [m for flag in unknown for m in difflib.get_close_matches(flag, known, n=1)]
        return f"; did you mean {', '.join(close)}?" if close else ""


def known_flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every flag of ``parser`` and of its subcommands (argparse reports a subcommand's
    unknown flag from the top parser)."""
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= known_flags(sub)
    return flags


def build_parser(arguments_of: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The command's parser with every subcommand; the arguments of those named in
    ``arguments_of`` (default: all), the others known by their help line alone."""
    parser = OneLineParser(
        prog="ralph-tui",
        description=f"{ABOUT} With no command, ralph-tui opens the terminal app "
        "(see ralph-tui --help).",
    )
    parser.add_argument("--version", action="version", version=f"ralph-tui {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    demo = sub.add_parser(DEMO, help=DEMO_HELP)
    demo.add_argument(
        "--headless",
        action="store_true",
        help="run the demo on the command line instead (any `run` flag may follow)",
    )
    chosen = set(COMMANDS if arguments_of is None else arguments_of)
    for name, command in COMMANDS.items():
        subparser = sub.add_parser(name, help=command.help)
        if name in chosen:
            command.add_arguments(subparser)
    return parser


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names: its first word (the command's own options, ``--help``
    and ``--version``, take no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def run_cli(argv: list[str]) -> int:
    chosen = chosen_command(argv)
    parser = build_parser(arguments_of=[chosen] if chosen else [])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    command = "optimize" if args.command == "run" and args.optimize else args.command
    if command not in COMMANDS:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        return COMMANDS[command].runner()(args)
    except BrokenPipeError:
        raise  # the reader went away: nothing to report to it (see ralph_tui.main)
    except (Exception, KeyboardInterrupt) as exc:  # the one place errors become exits
        return report_error(as_ralph_error(exc), as_json=getattr(args, "json", False))
