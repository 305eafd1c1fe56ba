"""Turning the form, or an edited iteration of a past session, into a ``RunRequest``.

These run in the run's worker thread: importing the loops takes a moment, and the
app paints without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph_tui.config import Settings, with_recorded, with_values
from ralph_tui.tui.core.form_values import RunFormValues

if TYPE_CHECKING:
    from ralph_tui.estimates import RunEstimate
    from ralph_tui.loops.runner import RunRequest
    from ralph_tui.traces.models import SessionRecord


def form_request(values: RunFormValues, settings: Settings) -> RunRequest:
    """The request the run form describes, on top of the app's settings."""
    from ralph_tui.loops.runner import RunRequest

    run_settings = with_values(
        settings,
        {
            "provider": values.provider,
            "max_iters": values.max_iters,
            "generate_model": values.generate_model,
            "validate_model": values.validate_model,
            "external_docs": ",".join(values.external_docs) or None,
            "external_provider": values.external_provider,
            "inner": values.inner,
        },
        "the run form",
    )
    return RunRequest(
        mode="task" if values.mode == "task" else "qa",
        query=values.query,
        doc_path=values.doc_path,
        more_docs=list(values.more_docs),
        settings=run_settings,
        decompose=values.decompose,
    )


def form_estimate(values: RunFormValues, settings: Settings) -> RunEstimate:
    """What the run the form describes is estimated to spend (reads the documents and the
    session index: call it off the app's thread)."""
    from ralph_tui.estimates import estimate_of_request

    return estimate_of_request(form_request(values, settings))


def rerun_request(record: SessionRecord, constraints: list[str], settings: Settings) -> RunRequest:
    """A new session of ``record``'s question and document with ``constraints`` from iteration 1.

    It records ``record`` as its parent, and runs with the settings ``record`` ran with,
    checked on top of the app's as the command line checks them (keys and endpoints come
    from the app's settings, never from a trace; a recorded path outside the out dir is
    refused).
    """
    from ralph_tui.loops.requests import rerun_request as recorded_rerun

    return recorded_rerun(
        record, constraints, lambda recorded, source: with_recorded(settings, recorded, source)
    )
