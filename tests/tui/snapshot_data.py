"""Fixed data for the screen-state snapshots: sessions (degraded, searched, running), evals
and variants, every figure and timestamp fixed, so each picture is the same on every run.
"""

from __future__ import annotations

from pathlib import Path

from ralph_tui.atomic import write_atomic
from ralph_tui.evals.scoring import ItemScore, summarise
from ralph_tui.evals.store import RESULTS_FILE, SUITE_FILE, SUMMARY_FILE, evals_dir
from ralph_tui.events import (
    BaseEvent,
    IterationStarted,
    Notice,
    RetrievalDone,
    RetrievedPassage,
    SandboxExecuted,
)
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import SessionHandle, TraceStore
from ralph_tui.variants.store import Variant, VariantStore
from tests.tui.scripted import DOC_NAME, QUESTION, T0, iteration_trace, scripted_events

DEGRADED = "rlimits-only"
DEGRADED_NOTICE = (
    "Sandbox isolation degraded to rlimits-only (bwrap: bwrap is not installed; unshare-net: "
    "unshare is not permitted here): cells run with resource limits only: they can read and "
    "write your files and reach the network."
)
SEARCH_QUERY = "backwash trigger head loss"
PASSAGE_QUOTES = (
    "Each filter is backwashed after 48 hours in service.",
    "A filter is backwashed earlier",
)


def _session(store: TraceStore, query: str = QUESTION, created: float = T0) -> SessionHandle:
    record = SessionRecord(
        mode="qa",
        query=query,
        doc_path=DOC_NAME,
        created_at=created,
        settings={"provider": "offline", "maxIters": 3},
    )
    return store.create_session(record)


def _finish(handle: SessionHandle, events: list[BaseEvent], traces: int) -> None:
    for event in events:
        handle.append_event(event)
    for iteration in range(1, traces + 1):
        trace = iteration_trace(iteration, passed=iteration == 2)
        handle.write_iteration(trace)
    handle.finish("passed", duration_ms=20_000, input_tokens=4800, output_tokens=1200, cost_usd=0.0)


def write_degraded_session(out_dir: Path) -> str:
    """A passed run whose sandbox had to settle for resource limits only."""
    store = TraceStore(out_dir)
    handle = _session(store)
    events = scripted_events(handle.session_id)
    notice = Notice(ts=T0, level="warning", message=DEGRADED_NOTICE)
    degraded: list[BaseEvent] = [events[0], notice]
    for event in events[1:]:
        if isinstance(event, SandboxExecuted):
            event = event.model_copy(update={"isolation": DEGRADED})
        degraded.append(event)
    for event in degraded:
        handle.append_event(event)
    for iteration in (1, 2):
        trace = iteration_trace(iteration, passed=iteration == 2).model_dump()
        handle.write_iteration(IterationTrace.model_validate({**trace, "isolation": DEGRADED}))
    handle.finish("passed", duration_ms=20_000, input_tokens=4800, output_tokens=1200, cost_usd=0.0)
    store.close()
    return handle.session_id


def passages(document: str) -> list[RetrievedPassage]:
    """Two passages of the sample document, located as the index would give them."""
    found = []
    for rank, quote in enumerate(PASSAGE_QUOTES, 1):
        start = document.index(quote)
        found.append(
            RetrievedPassage(
                id=f"c{rank:03d}",
                source="doc",
                label=f"{DOC_NAME} §{rank}",
                text=quote,
                span=[start, start + len(quote)],
                ranks={"lexical": rank, "dense": 3 - rank},
                scores={"fused": round(0.9 / rank, 3), "lexical": 12.5 / rank},
            )
        )
    return found


def write_searched_session(
    out_dir: Path,
    document: str,
    query: str = SEARCH_QUERY,
    diagnostics: dict[str, object] | None = None,
) -> str:
    """A passed run whose iterations each searched the document before the reader, for
    ``query``, the search recording ``diagnostics``."""
    store = TraceStore(out_dir)
    handle = _session(store)
    events = scripted_events(handle.session_id)
    searched: list[BaseEvent] = []
    for event in events:
        searched.append(event)
        if isinstance(event, IterationStarted):
            searched.append(
                RetrievalDone(
                    ts=event.ts,
                    iteration=event.iteration,
                    origin="prephase",
                    query=query,
                    passages=passages(document),
                    diagnostics=diagnostics or {},
                )
            )
    _finish(handle, searched, traces=2)
    store.close()
    return handle.session_id


def start_running_session(out_dir: Path, events_written: int) -> tuple[TraceStore, SessionHandle]:
    """A session this process is writing: iteration 1 done (failed), iteration 2 under way."""
    store = TraceStore(out_dir)
    handle = _session(store)
    for event in scripted_events(handle.session_id)[:events_written]:
        handle.append_event(event)
    handle.write_iteration(iteration_trace(1, passed=False))
    return store, handle


def write_fixture_evals(out_dir: Path) -> None:
    """Two finished evals: a needle suite over two sizes and depths, a QA suite of three."""
    needle = [
        ItemScore(id=f"needle-{size}k-d{depth}", status="passed" if found else "failed",
                  passed=found, facts_found=int(found), facts_total=1, iterations=1,
                  llm_calls=4, tokens=size * 1000, wall_s=2.5, doc_tokens=size * 1000,
                  meta={"size_tokens": size * 1000, "depth": depth / 100})
        for size, depth, found in [(8, 0, True), (8, 100, True), (16, 0, True), (16, 100, False)]
    ]  # fmt: skip
    sample = [
        ItemScore(id=name, status=status, passed=status == "passed", facts_found=found,
                  facts_total=2, evidence_precision=precision, evidence_recall=recall,
                  iterations=iterations, llm_calls=6 * iterations, tokens=3000 * iterations,
                  cost_usd=0.0, wall_s=4.0 * iterations, doc_tokens=8700)
        for name, status, found, precision, recall, iterations in [
            ("sample-backwash", "passed", 2, 1.0, 0.8, 1),
            ("sample-alarms", "passed", 2, 0.9, 0.75, 2),
            ("sample-chemicals", "failed", 1, 0.5, 0.25, 3),
        ]
    ]  # fmt: skip
    for eval_id, scores in (("20260101-000000-needle", needle), ("20260102-000000-sample", sample)):
        folder = evals_dir(out_dir) / eval_id
        folder.mkdir(parents=True)
        suite = "".join(f'{{"id": "{score.id}"}}\n' for score in scores)
        (folder / SUITE_FILE).write_text(suite, encoding="utf-8")
        results = "".join(score.model_dump_json() + "\n" for score in scores)
        (folder / RESULTS_FILE).write_text(results, encoding="utf-8")
        write_atomic(folder / SUMMARY_FILE, summarise(scores).model_dump_json(indent=2))


def write_fixture_variants(out_dir: Path) -> None:
    """Two variants proposed from the fixture sessions (not measured yet), one active."""
    store = VariantStore(out_dir)
    proposals = [
        ("v1a2b3c4d", "maxIters 3 -> 2", {"maxIters": 2}, (0.5, 12.0, 0.01)),
        ("v5e6f7a8b", "worker steps 80 -> 40", {"workerMaxSteps": 40}, (0.25, 6.0, 0.005)),
    ]
    for variant_id, change, knobs, (pass_rate, latency_s, cost_usd) in proposals:
        projection = {"pass_rate": pass_rate, "latency_s": latency_s, "cost_usd": cost_usd}
        store.save(
            Variant(id=variant_id, parent="baseline", change=change, knobs=knobs,
                    created_at=T0, projection=projection)
        )  # fmt: skip
    store.activate("v1a2b3c4d")


def child_events(t: float) -> list[BaseEvent]:
    """The worker's step 1 starts two child agents over one document each; the first asks
    a question of its own, at the deepest level (``--max-depth 3`` would start a grandchild
    there; here ``llm_query`` answers it); the second fails."""
    from ralph_tui.events import ChildFinished, ChildStarted, SubQuery

    first, second = "worker/1.1", "worker/1.2"
    return [
        ChildStarted(ts=t, agent="worker", child=first, step=1, depth=2,
                     prompt_preview="How often are the filters backwashed?",
                     context="1 document: plants/beta.md", folder="children/01-worker/1.1"),
        ChildStarted(ts=t, agent="worker", child=second, step=1, depth=2,
                     prompt_preview="How often are the filters backwashed?",
                     context="1 document: plants/gamma.md", folder="children/01-worker/1.2"),
        SandboxExecuted(ts=t + 1, agent=first, step=1,
                        code="print(grep('backwash', limit=3))",
                        output="{'hits': [{'span': [112, 120], 'text': 'backwash'}]}",
                        duration_ms=8, isolation="bwrap"),
        ChildStarted(ts=t + 1, agent=first, child=f"{first}/2.1", step=2, depth=3,
                     prompt_preview="What triggers an early backwash?",
                     context="a text of 1,800 characters"),
        SubQuery(ts=t + 2, agent=first, prompt_preview="What triggers an early backwash?",
                 answer_preview="Head loss above 2.1 metres.", latency_ms=640,
                 input_tokens=480, output_tokens=12, calls_used=4, calls_budget=60),
        ChildFinished(ts=t + 2, agent=first, child=f"{first}/2.1", step=2, depth=3,
                      status="llm_query", answer_preview="Head loss above 2.1 metres.",
                      duration_ms=640),
        SandboxExecuted(ts=t + 2, agent=first, step=2,
                        code="r = rlm_query('What triggers an early backwash?', context[:1800])",
                        output="", duration_ms=655, isolation="bwrap"),
        ChildFinished(ts=t + 3, agent="worker", child=first, step=1, depth=2,
                      status="answered", steps=3, duration_ms=2400,
                      answer_preview="- Each filter is backwashed after 48 hours in service."),
        ChildFinished(ts=t + 3, agent="worker", child=second, step=1, depth=2,
                      status="failed", duration_ms=2500,
                      error="[error] MaxStepsError: worker/1.2 used its 80 steps"),
        SandboxExecuted(ts=t + 3, agent="worker", step=1,
                        code="rs = rlm_query_batched([[q, [n]] for n in names])",
                        output="[None, '[error] MaxStepsError: worker/1.2 used its 80 steps']",
                        duration_ms=2520, isolation="bwrap"),
    ]  # fmt: skip


def write_recursive_session(out_dir: Path) -> str:
    """A passed run whose worker started child agents in iteration 2 (the one the session
    screen opens on)."""
    store = TraceStore(out_dir)
    handle = _session(store)
    events = scripted_events(handle.session_id)
    cell = [i for i, e in enumerate(events) if isinstance(e, SandboxExecuted)][-1]
    nested = [
        *events[:cell],
        *(e.model_copy(update={"session_id": handle.session_id}) for e in child_events(T0 + 12)),
        *events[cell + 1 :],
    ]
    _finish(handle, nested, 2)
    store.close()
    return handle.session_id
