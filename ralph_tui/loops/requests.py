"""What a run is asked to do (``RunRequest``), what its session records to repeat it, and
the requests that resume or re-run a recorded session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from ralph_tui.config import Settings, recorded_settings, restored_settings
from ralph_tui.documents import Confinement, InputError
from ralph_tui.json_input import first_problem
from ralph_tui.loops.iteration import merge_constraints
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

Mode = Literal["qa", "task"]

SettingsFor = Callable[[dict[str, Any], str], Settings]
"""Builds a resumed or re-run session's settings from what it recorded (by field name) and
a description of where those values come from, validated like any other settings."""


@dataclass
class RunRequest:
    mode: Mode
    query: str
    doc_path: Path
    settings: Settings
    decompose: bool = False
    constraints: list[str] = field(default_factory=list)
    parent_session_id: str | None = None
    start_iteration: int = 1
    previous_output: dict[str, Any] | None = None
    more_docs: list[Path] = field(default_factory=list)
    """Further ``--doc`` values (files, folders, globs) read along with ``doc_path``."""
    within: Confinement | None = None
    """The folders every file read must lie in, when the paths come from someone not
    trusted (an MCP server's client); ``None``: the user's own paths, read as given."""

    def doc_specs(self) -> list[Path]:
        return [self.doc_path, *self.more_docs]


def session_settings(request: RunRequest) -> dict[str, Any]:
    """What ``session.json`` records for a resume or re-run to repeat this run: every
    recorded setting, and the request's own choices."""
    return {
        **recorded_settings(request.settings),
        "decompose": request.decompose,
        "constraints": request.constraints,
        "docs": [str(spec.resolve()) for spec in request.doc_specs()],
    }


class RecordedChoices(BaseModel):
    """The request's own choices a session records beside its settings, checked on the way
    back in: a session folder may come from someone else."""

    decompose: bool = False
    constraints: list[str] = []
    docs: list[str] = []


def recorded_choices(record: SessionRecord) -> RecordedChoices:
    """What ``record`` recorded of its request; ``InputError`` naming it when that is not
    what a run records."""
    try:
        return RecordedChoices.model_validate(
            {k: v for k, v in record.settings.items() if k in RecordedChoices.model_fields}
        )
    except ValidationError as exc:
        raise InputError(
            f"session {record.session_id} recorded an invalid {first_problem(exc)}"
        ) from None


def recorded_request(
    record: SessionRecord, settings_for: SettingsFor, **choices: Any
) -> RunRequest:
    """A request for ``record``'s question and documents with the settings it recorded;
    ``choices`` set the rest (constraints, parent, where to start)."""
    source = f"session {record.session_id}"
    recorded = recorded_choices(record)
    return RunRequest(
        mode="qa" if record.mode == "qa" else "task",
        query=record.query,
        doc_path=Path(record.doc_path),
        more_docs=[Path(spec) for spec in recorded.docs[1:]],
        settings=settings_for(restored_settings(record.settings), source),
        decompose=recorded.decompose,
        **choices,
    )


def load_recorded(store: TraceStore, session_id: str) -> SessionRecord:
    """The record of the session ``session_id`` names (its whole id or a unique end of it);
    ``UnknownSessionError`` or ``AmbiguousSessionError`` otherwise."""
    return store.load_session(store.find_session(session_id))


def resume_request(store: TraceStore, session_id: str, settings_for: SettingsFor) -> RunRequest:
    """The request that continues ``session_id`` after its last completed iteration."""
    record = load_recorded(store, session_id)
    if record.subtask_of:
        raise InputError(f"{session_id} is a sub-task; resume its parent session instead")
    if record.status == "passed":
        raise InputError(f"session {session_id} already passed; nothing to resume")
    if recorded_choices(record).decompose:
        raise InputError("a decomposed session cannot be resumed; re-run it instead")
    traces = store.iterations(session_id)
    last: IterationTrace | None = traces[-1] if traces else None
    base = recorded_choices(record).constraints
    return recorded_request(
        record,
        settings_for,
        constraints=merge_constraints(base, last.feedback if last else []),
        parent_session_id=record.parent_session_id,
        start_iteration=(last.iteration + 1) if last else 1,
        previous_output=(last.output or None) if last else None,
    )


def rerun_request(
    record: SessionRecord, constraints: list[str] | None, settings_for: SettingsFor
) -> RunRequest:
    """A new session of ``record``'s question, documents and settings, linked to it as its
    child, from iteration 1 with ``constraints`` (``None``: the ones it started with)."""
    if record.subtask_of:
        raise InputError(f"{record.session_id} is a sub-task; re-run its parent session instead")
    started_with = recorded_choices(record).constraints
    return recorded_request(
        record,
        settings_for,
        constraints=started_with if constraints is None else list(constraints),
        parent_session_id=record.session_id,
    )
