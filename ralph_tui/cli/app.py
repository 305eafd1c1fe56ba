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
from collections.abc import Callable
from typing import NoReturn

from ralph_tui.cli.config_command import add_config_parser, run_config
from ralph_tui.cli.doctor import add_doctor_parser, run_doctor
from ralph_tui.cli.evals import add_eval_parser, run_eval_command
from ralph_tui.cli.external import add_external_parser, run_external
from ralph_tui.cli.mcp_command import add_mcp_parser, run_mcp
from ralph_tui.cli.optimize import add_optimize_parser, run_optimize
from ralph_tui.cli.report_command import add_report_parser, run_report
from ralph_tui.cli.reporting import report_error
from ralph_tui.cli.retrieval import add_retrieval_parsers, run_retrieval_command
from ralph_tui.cli.run import add_run_parser, run_command
from ralph_tui.cli.sessions import add_sessions_parser, run_sessions
from ralph_tui.cli.verify import add_verify_parser, run_verify
from ralph_tui.errors import ExitCode, as_ralph_error
from ralph_tui.version import __version__


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


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="ralph-tui",
        description="Grounded, evidence-backed document analysis with LLMs. "
        "With no arguments, ralph-tui opens the terminal app.",
    )
    parser.add_argument("--version", action="version", version=f"ralph-tui {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    sub.add_parser("demo", help="open the app and start a QA run on the sample document offline")
    add_run_parser(sub)
    add_sessions_parser(sub)
    add_report_parser(sub)
    add_retrieval_parsers(sub)
    add_external_parser(sub)
    add_eval_parser(sub)
    add_optimize_parser(sub)
    add_config_parser(sub)
    add_doctor_parser(sub)
    add_mcp_parser(sub)
    add_verify_parser(sub)
    return parser


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": run_command,
    "sessions": run_sessions,
    "report": run_report,
    "index": run_retrieval_command,
    "search": run_retrieval_command,
    "external": run_external,
    "eval": run_eval_command,
    "optimize": run_optimize,
    "config": run_config,
    "doctor": run_doctor,
    "mcp": run_mcp,
    "verify": run_verify,
}


def run_cli(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    command = "optimize" if args.command == "run" and args.optimize else args.command
    handler = COMMANDS.get(command)
    if handler is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        return handler(args)
    except BrokenPipeError:
        raise  # the reader went away: nothing to report to it (see ralph_tui.main)
    except (Exception, KeyboardInterrupt) as exc:  # the one place errors become exits
        return report_error(as_ralph_error(exc), as_json=getattr(args, "json", False))
