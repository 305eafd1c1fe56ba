"""What past sessions of the same run mode, inner mode and models actually spent, and the
calibration it gives the expected figures.

The settings-only model is run again for each past session with its own document size and
its own iteration count; the ratio of what the session spent to that figure (input and
output apart) is what the model misses about these models (a model that explores longer, a
judge that writes more). The median ratio scales the expected figures, and the median
iteration count replaces the settings-only one. Only the index is read, never a model.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings, setting_specs
from ralph_tui.estimates.spend import RunPlan, run_spend
from ralph_tui.events import RunStatus
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore

PAST_SESSIONS = 20
"""The newest sessions a calibration uses: recent enough to be the same models' habits."""
SCANNED = 500
"""The newest sessions of the run mode looked through for those that match."""
TELLING_STATUSES: tuple[RunStatus, ...] = ("passed", "failed", "timed_out", "capped")
"""Sessions that ran until they passed, used every iteration or reached a bound: what such
runs spend. A cancelled session (stopped by a person), a crashed one or one a provider error
stopped says little of it."""
MATCHED_SETTINGS = ("provider", "generate_model", "validate_model", "sub_model")
"""The settings a past session must share with the run to speak for it (and the inner mode,
compared apart)."""


@dataclass(frozen=True)
class PastRun:
    """What one past session was asked and spent."""

    doc_chars: int
    query_chars: int
    iterations: int
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class Calibration:
    """The correction past sessions give one inner mode's expected figures."""

    sessions: int
    iterations: float
    input_factor: float
    output_factor: float


def calibration(plan: RunPlan, mode: str, past: list[PastRun]) -> Calibration | None:
    """The calibration ``past`` gives ``mode`` (``None`` without a usable session)."""
    ratios_in, ratios_out, iterations = [], [], []
    for run in past:
        if run.iterations < 1 or run.input_tokens <= 0:
            continue
        like = replace(plan, doc_chars=run.doc_chars, query_chars=run.query_chars)
        modelled = run_spend(like, mode, run.iterations, worst=False)
        modelled_in = sum(s.input_tokens for s in modelled)
        modelled_out = sum(s.output_tokens for s in modelled)
        if modelled_in <= 0 or modelled_out <= 0:
            continue
        ratios_in.append(run.input_tokens / modelled_in)
        ratios_out.append(run.output_tokens / modelled_out)
        iterations.append(run.iterations)
    if not iterations:
        return None
    return Calibration(
        sessions=len(iterations),
        iterations=min(max(statistics.median(iterations), 1.0), float(plan.max_iters)),
        input_factor=statistics.median(ratios_in),
        output_factor=statistics.median(ratios_out),
    )


def _recorded(record: SessionRecord, name: str, settings: Settings) -> Any:
    spec = setting_specs()[name]
    return record.settings.get(spec.record_key, spec.default)


def matches(record: SessionRecord, settings: Settings, mode: str) -> bool:
    """Whether ``record`` ran in inner ``mode`` with the models ``settings`` give."""
    if record.subtask_of is not None or record.status not in TELLING_STATUSES:
        return False
    if _recorded(record, "inner", settings) != mode:
        return False
    return all(
        _recorded(record, name, settings) == getattr(settings, name) for name in MATCHED_SETTINGS
    )


def past_runs(
    settings: Settings, run_mode: str, modes: tuple[str, ...]
) -> dict[str, list[PastRun]]:
    """The newest past sessions of ``run_mode`` under the out dir that match ``settings``'
    models, by inner mode (only modes among ``modes``); empty when there is no index."""
    out = Path(settings.out_dir)
    if not (out / "sessions").is_dir():
        return {}
    store = TraceStore(out)
    try:
        records = store.index.list_sessions(mode=run_mode, status=TELLING_STATUSES, limit=SCANNED)
    finally:
        store.close()
    found: dict[str, list[PastRun]] = {}
    for mode in modes:
        kept = [r for r in records if matches(r, settings, mode)][:PAST_SESSIONS]
        if kept:
            found[mode] = [
                PastRun(r.doc_chars, len(r.query), r.iterations, r.input_tokens, r.output_tokens)
                for r in kept
            ]
    return found
