"""The estimate of a run as the front ends ask for it: the documents read (through the same
conversion and cache a run uses) for their size, the past sessions read from the out dir's
index, then the pure ``estimate_run``. No model is called and nothing goes on the network."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ralph_tui.config import Settings
from ralph_tui.documents import Confinement, Limits, read_corpus
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.estimates.estimate import estimate_run, inner_modes, plan_of
from ralph_tui.estimates.figures import RunEstimate
from ralph_tui.estimates.history import past_runs
from ralph_tui.llm.tokens import document_tokens
from ralph_tui.loops.requests import RunRequest


def documents_size(
    settings: Settings, docs: Sequence[Path], within: Confinement | None = None
) -> tuple[int, int, list[str]]:
    """The length of the documents' text as a run reads it, in characters and in the tokens
    a run chooses its inner mode by, and the notes on what could not be read
    (``InputError`` when nothing can). Conversions are kept in the out dir's cache,
    as a run keeps them, only when the out dir exists: an estimate creates nothing."""
    out = Path(settings.out_dir)
    cache = ExtractionCache(out / "cache" / "documents") if out.is_dir() else None
    corpus = read_corpus(list(docs), Limits.of(settings), None, cache, within)
    return len(corpus.text), document_tokens(corpus.text), corpus.notices()


def estimate_for(
    settings: Settings,
    mode: str,
    query: str,
    docs: Sequence[Path],
    *,
    constraints: Sequence[str] = (),
    decompose: bool = False,
    within: Confinement | None = None,
) -> RunEstimate:
    """The estimate of a run of ``mode`` asking ``query`` of ``docs`` with ``settings``."""
    doc_chars, doc_tokens, notes = documents_size(settings, docs, within)
    plan = plan_of(
        settings,
        mode,
        query,
        doc_chars,
        constraints=constraints,
        decompose=decompose,
        doc_tokens=doc_tokens,
    )
    estimate = estimate_run(
        plan,
        inner=settings.inner,
        cost_cap_usd=settings.cost_cap_usd,
        token_cap=settings.token_cap,
        past=past_runs(settings, mode, inner_modes()),
    )
    estimate.notes.extend(notes)
    return estimate


def estimate_of_request(request: RunRequest) -> RunEstimate:
    """The estimate of the run ``request`` describes (the command line's and the app's)."""
    return estimate_for(
        request.settings,
        request.mode,
        request.query,
        request.doc_specs(),
        constraints=request.constraints,
        decompose=request.decompose,
        within=request.within,
    )
