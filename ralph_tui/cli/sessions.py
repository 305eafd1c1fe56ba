"""``ralph-tui sessions list|show|reindex``: the trace index from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ralph_tui.cli.echo import echoed
from ralph_tui.cli.evidence_text import claim_lines, evidence_lines
from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.counts import counted
from ralph_tui.errors import ExitCode
from ralph_tui.events import SALVAGE_NOTE
from ralph_tui.llm.spend_words import cost_words, estimated_words
from ralph_tui.traces.children import ChildNode, ChildTree
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.session_ids import SESSIONS_DIR
from ralph_tui.traces.store import TraceStore


def run_sessions(args: argparse.Namespace) -> int:
    skipped: dict[str, str] = {}
    store = TraceStore(settings_from_args(args).out_dir, on_skip=skip_notice(skipped))
    try:
        if args.verb != "reindex" and (store.out_dir / SESSIONS_DIR).is_dir():
            # A session whose writer was killed is shown (and kept) as crashed, with its time.
            store.mark_crashed()
        if args.verb == "list":
            return list_sessions(store, args)
        if args.verb == "show":
            return show_session(store, args)
        return reindex_sessions(store, args, skipped)
    finally:
        store.close()


def summary_row(record: SessionRecord) -> dict[str, Any]:
    return {
        "sessionId": record.session_id,
        "created": datetime.fromtimestamp(record.created_at, UTC).strftime("%Y-%m-%d %H:%M"),
        "mode": record.mode,
        "status": effective_status(record),
        "iterations": record.iterations,
        "durationS": round((record.duration_ms or 0) / 1000, 1),
        "tokens": record.input_tokens + record.output_tokens,
        "costUsd": record.cost_usd,
        "parent": record.parent_session_id,
        "variant": record.settings.get("variant"),
        "inner": record.inner.mode if record.inner else None,
        "innerReason": record.inner.reason if record.inner else None,
        "query": echoed(record.query),
        "queryChars": len(record.query),
    }


def list_sessions(store: TraceStore, args: argparse.Namespace) -> int:
    if not (store.out_dir / "sessions").is_dir():
        print("[]" if args.json else f"no sessions in {store.out_dir}")
        return 0
    # One row more than asked for says whether the list was capped.
    wanted = args.limit + 1 if args.limit else None
    if args.search and not args.mode and not args.status:
        records = store.index.search(args.search, limit=wanted or -1)
    else:
        records = store.index.list_sessions(
            mode=args.mode, status=args.status, text=args.search, limit=wanted
        )
    capped = wanted is not None and len(records) == wanted
    rows = [summary_row(r) for r in records[: args.limit or None]]
    if capped:
        print(
            f"listed the first {args.limit}; there are more sessions "
            "(--limit N or --all lists them)",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    for row in rows:
        cost = "-" if row["costUsd"] is None else f"${row['costUsd']:.4f}"
        query = row["query"] if len(row["query"]) <= 50 else row["query"][:49] + "…"
        print(
            f"{row['created']}  {row['sessionId']:<32} {row['mode']:<4} {row['status']:<9} "
            f"{row['iterations']:>3} it {row['durationS']:>7.1f} s {row['tokens']:>9,} tok "
            f"{cost:>9}  {query}"
        )
    return 0


def show_session(store: TraceStore, args: argparse.Namespace) -> int:
    session_id = store.find_session(args.session_id)
    record = store.load_session(session_id)
    traces = store.iterations(session_id)
    subtasks = store.index.subtasks(session_id)
    if args.json:
        payload = {
            **summary_row(record),
            "error": echoed(record.error) if record.error else None,
            "subtasks": [{**summary_row(s), "subtaskId": s.subtask_id} for s in subtasks],
            "iterationTraces": [{**t.model_dump(), "query": echoed(t.query)} for t in traces],
            "children": [
                tree.model_dump(mode="json", by_alias=True) for tree in store.children(session_id)
            ],
        }
        print(json.dumps(payload, ensure_ascii=False, default=str))
        return 0
    row = summary_row(record)
    print(
        f"{row['sessionId']}  {row['mode']}  {row['status']}  {row['created']}  "
        f"{row['iterations']} it  {row['durationS']:.1f} s"
    )
    if record.error:
        print(f"error: {echoed(record.error)}")
    print(f"query: {echoed(record.query)}\ndocument: {echoed(record.doc_path)}")
    print(f"settings: {settings_line(record.settings)}")
    if record.inner is not None:
        print(f"inner mode: {record.inner.describe()}")
    print(f"usage: {usage_line(record)}")
    if subtasks:
        print("sub-tasks:")
    for subtask in subtasks:
        part = summary_row(subtask)
        print(
            f"  {subtask.subtask_id}  {part['status']:<9} {part['iterations']:>2} it "
            f"{part['durationS']:>6.1f} s {part['tokens']:>8,} tok  {echoed(subtask.query)}"
        )
    for trace in traces:
        verdict = "passed" if trace.passed else f"failed {trace.failure_tag or ''}".strip()
        if trace.fallback:
            verdict += f" ({SALVAGE_NOTE})"
        constraints = counted(len(trace.constraints), "constraint")
        print(f"\niteration {trace.iteration}: {verdict}; {constraints}")
        for rule in trace.hard_validation.rules:
            if not rule.ok:
                print(f"  x {rule.name}: {rule.message}")
        for issue in trace.judge.issues if trace.judge else []:
            print(f"  - judge: {issue.message}")
    for line in child_lines(store.children(session_id)):
        print(line)
    if traces:
        last = traces[-1]
        print("\nlast output:\n" + json.dumps(last.output, indent=2, ensure_ascii=False))
        evidence = last.output.get("evidence") or []
        if last.quotes:
            print("evidence from:\n" + evidence_lines(evidence, last.quotes))
        if last.claims:
            print("claims:\n" + claim_lines(last.claims, evidence, last.quotes))
    return 0


def child_lines(trees: list[ChildTree]) -> list[str]:
    """The child agents of the session (``rlm_query``), one line each, indented by level."""
    lines = []
    for tree in trees:
        lines.append(f"\nchild agents of iteration {tree.iteration}'s {tree.agent}:")
        lines.extend(_node_lines(tree.children, 1))
        if tree.truncated:
            lines.append("  ... (more children than are shown)")
    return lines


def _node_lines(nodes: list[ChildNode], level: int) -> list[str]:
    lines = []
    for node in nodes:
        pad = "  " * level
        record = node.record
        if record is None:
            lines.append(f"{pad}{node.name}: {node.problem}")
        else:
            ended = f"{record.status}, {counted(record.steps, 'step')}"
            said = record.error or next(iter(record.answer.splitlines()), "")
            lines.append(
                f"{pad}{node.name} {ended} over {echoed(record.context)}: "
                f"{echoed(_short(record.prompt))} -> {echoed(_short(said))}"
            )
        lines.extend(_node_lines(node.children, level + 1))
    return lines


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def settings_line(settings: dict[str, Any]) -> str:
    """The recorded settings a reader compares runs by: the variant, the models, the
    iterations allowed."""
    variant = settings.get("variant") or "none"
    models = "models offline"
    if settings.get("provider") != "offline":
        generate, validate = settings.get("generateModel"), settings.get("validateModel")
        models = f"generate {generate}, validate {validate}"
    return f"variant {variant}, {models}, maxIters {settings.get('maxIters')}"


def usage_line(record: SessionRecord) -> str:
    """Tokens in and out, the prompt-cache hits among the input when known, the cost, and
    what the sub-call cache saved."""
    cached = (record.model_extra or {}).get("cache_read_tokens")
    hits = ""
    if isinstance(cached, int) and record.input_tokens:
        hits = f" ({cached:,} from the prompt cache, {cached * 100 // record.input_tokens}%)"
    estimated = estimated_words(record.estimated_calls, record.llm_calls)
    cost = cost_words(record.cost_usd, record.unknown_cost_calls)
    line = f"{record.input_tokens:,} tokens in{hits}, {record.output_tokens:,} out"
    line += f" ({estimated}), {cost}" if estimated else f", {cost}"
    if record.subcall_cache_saved.calls:
        line += "; " + record.subcall_cache_saved.describe()
    return line


def skip_notice(skipped: dict[str, str]) -> Callable[[Path, str], None]:
    """What a rebuild of the index calls for a session folder it leaves out: one line on
    stderr naming the folder and why (once per folder), kept in ``skipped``."""

    def notice(folder: Path, reason: str) -> None:
        if str(folder) not in skipped:
            print(f"skipped {folder}: {reason}", file=sys.stderr)
        skipped[str(folder)] = reason

    return notice


def reindex_sessions(store: TraceStore, args: argparse.Namespace, skipped: dict[str, str]) -> int:
    """Rebuild the index; a session folder that cannot be read is left out with a line on
    stderr saying which and why, and the exit code is then 1 (the others are indexed)."""
    started = time.perf_counter()
    count = store.reindex()
    elapsed = time.perf_counter() - started
    if args.json:
        left_out = [{"folder": folder, "reason": why} for folder, why in skipped.items()]
        print(json.dumps({"sessions": count, "seconds": round(elapsed, 3), "skipped": left_out}))
    else:
        more = f"; skipped {len(skipped)} that could not be read" if skipped else ""
        print(f"indexed {counted(count, 'session')} from {store.out_dir} in {elapsed:.2f} s{more}")
    return int(ExitCode.FAILED if skipped else ExitCode.OK)
