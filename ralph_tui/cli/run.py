"""``ralph-tui run``: one session headless, a resume of one, or a re-run of one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ralph_tui.cli.arguments.request import DECOMPOSE_NEEDS_TASK
from ralph_tui.cli.estimate_command import print_estimate
from ralph_tui.cli.evidence_text import claim_lines, evidence_lines
from ralph_tui.cli.report_command import check_output, render_session
from ralph_tui.cli.reporting import report_error
from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.cli.stopping import run_async
from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.errors import as_ralph_error
from ralph_tui.events import ERROR_OF_STATUS, EXIT_CODE_OF_STATUS, SALVAGE_NOTE, BaseEvent
from ralph_tui.evidence import answers_absence
from ralph_tui.loops.requests import Mode, RunRequest, load_recorded, rerun_request, resume_request
from ralph_tui.loops.runner import RunOutcome, execute_run
from ralph_tui.progress_lines import ProgressPrinter
from ralph_tui.reports.render import format_of_path, write_report
from ralph_tui.traces.store import TraceStore
from ralph_tui.validate.claims import LINE_QUOTES


def build_request(args: argparse.Namespace) -> tuple[RunRequest, str | None]:
    """The request the arguments describe, and the session it resumes (if it does)."""
    if args.resume or args.rerun:
        return recorded_run(args)
    if args.query is None or args.doc is None:
        raise InputError("--query and --doc are required (or --resume / --rerun SESSION_ID)")
    mode: Mode = "qa" if args.mode == "qa" else "task"
    if args.decompose and mode != "task":
        raise InputError(DECOMPOSE_NEEDS_TASK)
    request = RunRequest(
        mode=mode,
        query=args.query,
        doc_path=args.doc[0],
        more_docs=args.doc[1:],
        settings=settings_from_args(args),
        decompose=args.decompose,
        constraints=list(args.constraint),
        parent_session_id=args.parent,
    )
    return request, None


def recorded_run(args: argparse.Namespace) -> tuple[RunRequest, str | None]:
    """``--resume`` or ``--rerun``: the recorded session's request, its settings restored
    under the flags given now."""
    given = [flag for flag, value in (("--query", args.query), ("--doc", args.doc),
             ("--mode", args.mode), ("--parent", args.parent)) if value]  # fmt: skip
    if given:
        raise InputError(
            f"{', '.join(given)} cannot be combined with --resume or --rerun: the session's "
            "own are used"
        )

    def settings_for(recorded: dict[str, Any], source: str) -> Settings:
        return settings_from_args(args, recorded, source)

    store = TraceStore(settings_from_args(args).out_dir)
    try:
        if args.resume:
            if args.constraint:
                raise InputError("--constraint works with --rerun, not --resume")
            session_id = store.find_session(args.resume)
            return resume_request(store, session_id, settings_for), session_id
        record = load_recorded(store, args.rerun)
        constraints = list(args.constraint) or None
        return rerun_request(record, constraints, settings_for), None
    finally:
        store.close()


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
    if args.report is not None:
        format_of_path(args.report)
        check_output(args.report)
    request, resume_of = build_request(args)
    if args.estimate:
        return print_estimate(request, args)
    seen = SessionSeen(ProgressPrinter(sys.stderr, verbose=args.verbose))
    try:
        outcome = run_async(execute_run(request, on_event=seen, resume_of=resume_of))
    except KeyboardInterrupt as stop:
        return report_error(as_ralph_error(stop), as_json=args.json, session_id=seen.session_id)
    print_outcome(outcome, as_json=args.json)
    if args.report is not None:
        write_session_report(request.settings, outcome.session_id, args.report)
    kind = ERROR_OF_STATUS.get(outcome.status)
    if kind is not None:
        # The recorded error is already one line, hint included; the outcome printed above
        # is the --json object.
        error = kind(outcome.error or f"the run ended {outcome.status}", hint="")
        report_error(error, as_json=False)
    return EXIT_CODE_OF_STATUS[outcome.status]


def write_session_report(settings: Settings, session_id: str, path: Path) -> None:
    """The session's report, written to ``path`` in the format its extension names; said on
    stderr, where the run's progress went."""
    text = render_session(settings, session_id, format_of_path(path))
    write_report(path, text)
    print(f"report: {path}", file=sys.stderr)


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
        if key == LINE_QUOTES and outcome.claims:
            continue  # shown as the claims below, each with its quotes
        print(f"\n{key}:")
        if key == "evidence" and isinstance(value, list):
            print(evidence_lines(value, outcome.quotes))
        elif isinstance(value, list):
            print("\n".join(f"  - {item}" for item in value))
        else:
            print(str(value))
    if outcome.claims:
        evidence = (outcome.output or {}).get("evidence") or []
        print("\nclaims:\n" + claim_lines(outcome.claims, evidence, outcome.quotes))
    if outcome.coverage is not None and answers_absence(outcome.output):
        print(f"\nnot found: {outcome.coverage.describe()}")
