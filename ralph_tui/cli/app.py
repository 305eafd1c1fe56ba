"""Command-line interface: argument parsing, the headless runner and subcommands.

Exit codes are ``ralph_tui.errors.ExitCode``: a run's from its status
(``EXIT_CODE_OF_STATUS``), an error's from its kind. Every error that ends a command is
rendered here, once: one line on stderr (never a traceback) and, with ``--json``, one JSON
object on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ralph_tui import __version__
from ralph_tui.cli.evals import add_eval_parser, run_eval_command
from ralph_tui.cli.evidence_text import evidence_lines
from ralph_tui.cli.external import add_external_parser, run_external
from ralph_tui.cli.external_flags import EXTERNAL_DOCS_FLAGS
from ralph_tui.cli.optimize import add_optimize_parser, run_optimize
from ralph_tui.cli.progress import ProgressPrinter
from ralph_tui.cli.retrieval import add_retrieval_parsers, run_retrieval_command
from ralph_tui.cli.run_flags import add_settings_flags, flag_help, settings_from_args
from ralph_tui.cli.sessions import add_sessions_parser, run_sessions
from ralph_tui.config import load_settings
from ralph_tui.documents import InputError
from ralph_tui.errors import ExitCode, RalphError, as_ralph_error
from ralph_tui.events import EXIT_CODE_OF_STATUS, SALVAGE_NOTE, BaseEvent
from ralph_tui.loops.runner import (
    RunOutcome,
    RunRequest,
    execute_run,
    resume_request,
    stored_overrides,
)
from ralph_tui.traces.store import TraceStore


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_run_parser(sub: Any) -> None:
    run = sub.add_parser("run", help="run a session headless", description="Run a session.")
    run.add_argument("--mode", choices=["qa", "task"], default="task")
    run.add_argument("--query", help="the question (qa) or the task (task)")
    run.add_argument(
        "--doc",
        type=Path,
        action="append",
        help="a document (text, Markdown, PDF, HTML, Word), a folder of them, or a glob; "
        "repeat for several",
    )
    run.add_argument("--decompose", action="store_true", help="split the task into sub-tasks")
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    run.add_argument("--resume", metavar="SESSION_ID", help="continue an interrupted session")
    run.add_argument(
        "--constraint", action="append", default=[], help="a constraint for iteration 1"
    )
    run.add_argument("--parent", metavar="SESSION_ID", help="record the run as a re-run of this")
    add_settings_flags(run)
    run.add_argument(
        *EXTERNAL_DOCS_FLAGS,
        action="append",
        dest="external_docs",
        metavar="URL",
        help=flag_help("external_docs"),
    )
    run.add_argument("--verbose", "-v", action="store_true", help="print every agent step")
    run.add_argument(
        "--optimize", action="store_true", help="optimize from the sessions instead of a run"
    )
    run.add_argument("--propose", type=int, default=3, help=argparse.SUPPRESS)
    run.add_argument("--activate", metavar="ID", help=argparse.SUPPRESS)
    run.add_argument("--no-activate", action="store_true", help=argparse.SUPPRESS)


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
    add_retrieval_parsers(sub)
    add_external_parser(sub)
    add_eval_parser(sub)
    add_optimize_parser(sub)
    return parser


def build_request(args: argparse.Namespace) -> tuple[RunRequest, str | None]:
    if args.resume:
        out = Path(args.out_dir or load_settings().out_dir)
        store = TraceStore(out)
        request = resume_request(
            store,
            args.resume,
            lambda stored: settings_from_args(args, stored_overrides(stored)),
        )
        return request, args.resume
    if args.query is None or args.doc is None:
        raise InputError("--query and --doc are required (or --resume SESSION_ID)")
    request = RunRequest(
        mode=args.mode,
        query=args.query,
        doc_path=args.doc[0],
        more_docs=args.doc[1:],
        settings=settings_from_args(args),
        decompose=args.decompose,
        constraints=list(args.constraint),
        parent_session_id=args.parent,
    )
    if args.decompose and args.mode != "task":
        raise InputError("--decompose works in task mode only")
    return request, None


class SessionSeen:
    """Passes events on to the progress printer and remembers the session they belong to,
    so a run stopped by Ctrl-C can still be reported with its session id."""

    def __init__(self, printer: ProgressPrinter) -> None:
        self.printer = printer
        self.session_id: str | None = None

    def __call__(self, event: BaseEvent) -> None:
        self.session_id = self.session_id or event.session_id
        self.printer(event)


def run_command(args: argparse.Namespace) -> int:
    request, resume_of = build_request(args)
    seen = SessionSeen(ProgressPrinter(sys.stderr, verbose=args.verbose))
    try:
        outcome = asyncio.run(execute_run(request, on_event=seen, resume_of=resume_of))
    except KeyboardInterrupt as stop:
        return report_error(as_ralph_error(stop), as_json=args.json, session_id=seen.session_id)
    print_outcome(outcome, as_json=args.json)
    if outcome.status in ("error", "crashed"):
        print(f"ralph-tui: error: {outcome.error or outcome.status}", file=sys.stderr)
    return EXIT_CODE_OF_STATUS[outcome.status]


def print_outcome(outcome: RunOutcome, *, as_json: bool) -> None:
    if as_json:
        result = outcome.to_json()
        result["exitCode"] = int(EXIT_CODE_OF_STATUS[outcome.status])
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"status: {outcome.status}   session: {outcome.session_id}")
    if outcome.error:
        print(f"error: {outcome.error}")
    if outcome.salvaged:
        print(f"note: {SALVAGE_NOTE}")
    for key, value in (outcome.output or {}).items():
        print(f"\n{key}:")
        if key == "evidence" and isinstance(value, list):
            print(evidence_lines(value, outcome.evidence_sources))
        elif isinstance(value, list):
            print("\n".join(f"  - {item}" for item in value))
        else:
            print(str(value))


def report_error(error: RalphError, *, as_json: bool, session_id: str | None = None) -> int:
    """Render ``error`` the one way the command line does, and return its exit code."""
    print(f"ralph-tui: error: {error.one_line()}", file=sys.stderr)
    if as_json:
        print(json.dumps({**error.to_json(), "sessionId": session_id}, ensure_ascii=False))
    return int(error.exit_code)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": run_command,
    "sessions": run_sessions,
    "index": run_retrieval_command,
    "search": run_retrieval_command,
    "external": run_external,
    "eval": run_eval_command,
    "optimize": run_optimize,
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
    except (Exception, KeyboardInterrupt) as exc:  # the one place errors become exits
        return report_error(as_ralph_error(exc), as_json=getattr(args, "json", False))
