"""Command-line interface: argument parsing, the headless runner and subcommands.

Exit codes: 0 validated result; 1 ran but no iteration passed, timed out or was capped (best
candidate reported); 2 bad usage or input; 3 provider/auth/network failure that stopped the run;
4 an unexpected internal error (one line, never a traceback; the session is recorded as
crashed); 130 cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
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
from ralph_tui.config import SettingsError, load_settings
from ralph_tui.documents import InputError
from ralph_tui.events import SALVAGE_NOTE
from ralph_tui.llm.errors import LLMError
from ralph_tui.loops.runner import (
    RunOutcome,
    RunRequest,
    execute_run,
    resume_request,
    stored_overrides,
)
from ralph_tui.traces.store import TraceStore

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PROVIDER, EXIT_INTERNAL, EXIT_CANCELLED = 0, 1, 2, 3, 4, 130
STATUS_EXIT = {
    "passed": EXIT_OK,
    "failed": EXIT_FAILED,
    "timed_out": EXIT_FAILED,
    "capped": EXIT_FAILED,
    "cancelled": EXIT_CANCELLED,
}


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


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


def run_command(args: argparse.Namespace) -> int:
    try:
        request, resume_of = build_request(args)
    except (InputError, SettingsError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    printer = ProgressPrinter(sys.stderr, verbose=args.verbose)
    try:
        outcome = asyncio.run(execute_run(request, on_event=printer, resume_of=resume_of))
    except InputError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except LLMError as exc:
        return _fail(str(exc), EXIT_PROVIDER)
    except KeyboardInterrupt:
        return _fail("cancelled", EXIT_CANCELLED)
    except Exception as exc:  # the one place nothing may escape from: no traceback for users
        detail = " ".join(str(exc).split()) or "no detail"
        return _fail(
            f"unexpected {type(exc).__name__}: {detail} (the session is recorded as crashed; "
            "please report this with its events.jsonl)",
            EXIT_INTERNAL,
        )
    print_outcome(outcome, as_json=args.json)
    if outcome.status == "error":
        return EXIT_PROVIDER
    return STATUS_EXIT.get(outcome.status, EXIT_FAILED)


def print_outcome(outcome: RunOutcome, *, as_json: bool) -> None:
    if as_json:
        print(
            json.dumps(
                {
                    "status": outcome.status,
                    "sessionId": outcome.session_id,
                    "iterations": outcome.iterations,
                    "output": outcome.output,
                    "usage": outcome.usage,
                    "error": outcome.error,
                    "salvaged": outcome.salvaged,
                    "evidenceSources": outcome.evidence_sources,
                },
                ensure_ascii=False,
            )
        )
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


def _fail(message: str, code: int) -> int:
    print(f"ralph-tui: error: {message}", file=sys.stderr)
    return code


def run_cli(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.command == "optimize" or (args.command == "run" and args.optimize):
        return run_optimize(args)
    if args.command == "run":
        return run_command(args)
    if args.command == "sessions":
        return run_sessions(args)
    if args.command in ("index", "search"):
        return run_retrieval_command(args)
    if args.command == "external":
        return run_external(args)
    if args.command == "eval":
        return run_eval_command(args)
    parser.print_help(sys.stderr)
    return EXIT_USAGE
