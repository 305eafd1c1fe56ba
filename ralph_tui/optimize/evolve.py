"""Reflective prompt evolution (``optimize --evolve``) with the ``gepa`` library.

GEPA proposes role prompts; the adapter here judges each by running the suite's items as
normal traced sessions under a variant holding that prompt (so the evaluator measures it
like any other), scores them as ``eval`` does, and builds the reflective dataset from the
traces — what the role produced, what the validator and the judge said, which expected
facts were missing. The reflection LM is ralph-tui's own generate client (no litellm).
Budgets: metric calls (sessions) and dollars; ``run_dir`` makes an interrupted run resume."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gepa import EvaluationBatch, GEPAAdapter, GEPAResult
from gepa.core.adapter import ProposalFn

from ralph_tui.agents.rlm_prompt import shrink
from ralph_tui.batch.jobs import JobResult, SessionJob
from ralph_tui.batch.local import Executor
from ralph_tui.config import Settings
from ralph_tui.errors import UsageError
from ralph_tui.evals.run import document_text
from ralph_tui.evals.scoring import ItemScore, answer_text, score_item
from ralph_tui.evals.suite import EvalItem
from ralph_tui.events import SandboxExecuted, ToolExecuted
from ralph_tui.llm.factory import build_clients
from ralph_tui.llm.types import ChatMessage
from ralph_tui.roles.aggregator import AGGREGATOR
from ralph_tui.roles.compactor import COMPACTOR
from ralph_tui.roles.decomposer import DECOMPOSER
from ralph_tui.roles.doc_reader import DEFINITION as DOC_READER_DEFINITION
from ralph_tui.roles.judge import JUDGE
from ralph_tui.roles.task_judge import TASK_JUDGE
from ralph_tui.roles.task_reasoner import TASK_REASONER
from ralph_tui.roles.worker import DEFINITION as WORKER_DEFINITION
from ralph_tui.traces.store import TraceStore
from ralph_tui.variants.store import Variant, VariantStore, variant_id

T = TypeVar("T")

BUILT_IN_PROMPTS = {
    "worker": WORKER_DEFINITION,
    "doc_reader": DOC_READER_DEFINITION,
    **{
        spec.name: spec.system
        for spec in (JUDGE, TASK_JUDGE, TASK_REASONER, COMPACTOR, DECOMPOSER, AGGREGATOR)
    },
}
"""Every role prompt a variant can set, as built in."""
EVOLVED = "evolved prompts (GEPA)"


class EvolveError(UsageError):
    """``--evolve`` cannot run as asked: the message says why."""

    title = "Cannot evolve prompts"


class LoopThread:
    """An event loop in a thread of its own: GEPA calls the adapter synchronously, and the
    sessions and the reflection LM are async (one loop, so clients keep their connections)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


@dataclass
class Spend:
    """Dollars spent by the evolution: its sessions and its reflection calls."""

    usd: float = 0.0
    unknown: int = 0

    def add(self, cost: float | None) -> None:
        if cost is None:
            self.unknown += 1
        else:
            self.usd += cost


@dataclass
class SpendStopper:
    """A GEPA stop condition: the dollar budget is used up."""

    spend: Spend
    max_usd: float

    def __call__(self, gepa_state: Any) -> bool:
        return self.spend.usd >= self.max_usd


@dataclass
class ProgressLog:
    """GEPA's log: each line kept in ``run_dir/run_log.txt`` and shown on stderr (progress
    of a long optimization; stdout stays for the result)."""

    path: Path

    def log(self, message: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as log:
            log.write(message + "\n")
        print(f"  gepa: {message}", file=sys.stderr)


def item_score(score: ItemScore) -> float:
    """What GEPA maximises per item: 1 for a passed run whose facts were all found, half
    for one of the two, 0 otherwise."""
    return (float(score.passed) + float(score.found)) / 2


@dataclass
class Trajectory:
    """What reflection reads of one item's run."""

    query: str
    output: str
    feedback: str
    score: float


@dataclass
class SessionAdapter:
    """The GEPA adapter: a candidate (role -> prompt) becomes a variant, judged by running
    items as sessions under it."""

    settings: Settings
    executor: Executor
    loop: LoopThread
    parent: Variant | None
    spend: Spend = field(default_factory=Spend)
    batches: int = 0
    propose_new_texts: ProposalFn | None = None
    """None: GEPA's own reflective proposal, through the reflection LM."""

    def variant_of(self, candidate: Mapping[str, str]) -> Variant:
        knobs = dict(self.parent.knobs) if self.parent else {}
        prompts = dict(candidate)
        variant = Variant(
            id=variant_id(knobs, prompts),
            parent=self.parent.id if self.parent else None,
            change=EVOLVED,
            knobs=knobs,
            prompts=prompts,
        )
        store = VariantStore(self.settings.out_dir)
        try:
            return store.get(variant.id)
        except ValueError:
            return store.save(variant)

    def evaluate(
        self, batch: list[EvalItem], candidate: dict[str, str], capture_traces: bool = False
    ) -> EvaluationBatch[Trajectory, Any]:
        variant = self.variant_of(candidate)
        self.batches += 1
        jobs = [
            SessionJob(
                key=f"{self.batches}-{n}-{item.id}",
                mode=item.mode,
                query=item.query,
                docs=(str(item.doc),),
                overrides={"variant": variant.id},
            )
            for n, item in enumerate(batch)
        ]
        results = self.loop.run(self.executor.run(jobs, self.settings, lambda _r: None))
        scores, trajectories = [], []
        for item, result in zip(batch, results, strict=True):
            score = score_item(item, result.outcome, document_text(item, self.settings),
                               result.wall_s)  # fmt: skip
            self.spend.add(score.cost_usd)
            scores.append(item_score(score))
            trajectories.append(self.trajectory(item, result, score))
        return EvaluationBatch(
            outputs=[r.outcome.get("output") for r in results],
            scores=scores,
            trajectories=trajectories if capture_traces else None,
        )

    def trajectory(self, item: EvalItem, result: JobResult, score: ItemScore) -> Trajectory:
        """The run's output and everything it was told was wrong, from its traces."""
        problems: list[str] = []
        exploration = ""
        if result.outcome.get("error"):
            problems.append(f"the run failed: {result.outcome['error']}")
        session_id = str(result.outcome.get("session_id") or "")
        if session_id:
            store = TraceStore(self.settings.out_dir)
            exploration = last_exploration(store, session_id)
            for trace in store.iterations(session_id):
                rules = trace.hard_validation.rules
                problems += [f"check {r.name}: {r.message}" for r in rules if not r.ok]
                if trace.judge is not None:
                    problems += [f"judge: {issue.message}" for issue in trace.judge.issues]
        missing = [f for f in item.expect.facts if f.lower() not in answer_text(
            result.outcome.get("output")).lower()]  # fmt: skip
        if missing:
            problems.append("the answer lacks the expected facts: " + "; ".join(missing))
        verdict = "passed validation" if score.passed else f"ended {score.status}"
        feedback = f"The run {verdict}." + "".join(f"\n- {p}" for p in dict.fromkeys(problems))
        output = answer_text(result.outcome.get("output"))
        if exploration:
            output = f"How it explored the document (its last step):\n{exploration}\n\n{output}"
        return Trajectory(item.query, output, feedback, item_score(score))

    def make_reflective_dataset(
        self,
        candidate: dict[str, str],
        eval_batch: EvaluationBatch[Trajectory, Any],
        components_to_update: list[str],
    ) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        records = [
            {
                "Inputs": {"question or task": t.query},
                "Generated Outputs": t.output or "(no output)",
                "Feedback": t.feedback,
            }
            for t in eval_batch.trajectories or []
        ]
        return {component: records for component in components_to_update}


EXPLORATION_CHARS = 2000


def last_exploration(store: TraceStore, session_id: str) -> str:
    """The last code cell the session's agent ran (or tool it called) and what came back,
    shortened: what reflection reads of how the role worked."""
    events, _offset = store.tail_events(session_id)
    for event in reversed(events):
        if isinstance(event, SandboxExecuted):
            return shrink(f"{event.code}\n--- printed:\n{event.output}", EXPLORATION_CHARS)
        if isinstance(event, ToolExecuted):
            return shrink(f"{event.tool}({event.arguments})\n--- returned:\n{event.result}",
                          EXPLORATION_CHARS)  # fmt: skip
    return ""


@dataclass
class ReflectionLM:
    """GEPA's reflection LM: the generate model through ralph-tui's client, metered."""

    settings: Settings
    loop: LoopThread
    spend: Spend

    def __post_init__(self) -> None:
        self.clients = build_clients(self.settings)

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        messages = (
            [ChatMessage(role="user", content=prompt)]
            if isinstance(prompt, str)
            else [ChatMessage(role=m["role"], content=str(m["content"])) for m in prompt]
        )
        completion = self.loop.run(self.clients.generate.chat(messages, max_tokens=2048))
        self.spend.add(completion.cost_usd)
        return completion.text

    def close(self) -> None:
        self.loop.run(self.clients.aclose())


@dataclass
class EvolveResult:
    best: Variant
    seed: Variant
    scores: list[tuple[Variant, float]]
    """Every candidate GEPA kept, with its mean validation score."""
    metric_calls: int
    spend: Spend


def evolve(
    settings: Settings,
    items: list[EvalItem],
    executor: Executor,
    *,
    components: tuple[str, ...] = ("worker",),
    max_metric_calls: int = 40,
    max_usd: float | None = None,
    run_dir: Path,
) -> EvolveResult:
    """Evolve the ``components`` prompts over ``items`` (half train, half validation)."""
    import gepa

    if settings.provider == "offline":
        raise EvolveError(
            "--evolve needs a real model for reflection: the offline baseline cannot write "
            "prompts (give --generate-model, or a server with OPENAI_BASE_URL)"
        )
    unknown = [c for c in components if c not in BUILT_IN_PROMPTS]
    if unknown:
        raise EvolveError(f"no prompt component {unknown[0]!r}: the components are "
                          f"{', '.join(BUILT_IN_PROMPTS)}")  # fmt: skip
    store = VariantStore(settings.out_dir)
    active = store.active_id()
    parent = store.get(active) if active and active != "baseline" else None
    seed = {
        c: settings.role_prompts.get(c)
        or (parent.prompts.get(c) if parent else None)
        or BUILT_IN_PROMPTS[c]
        for c in components
    }
    train, val = items[::2], items[1::2] or items[::2]
    loop = LoopThread()
    adapter = SessionAdapter(settings, executor, loop, parent)
    reflection = ReflectionLM(settings, loop, adapter.spend)
    stoppers = [SpendStopper(adapter.spend, max_usd)] if max_usd is not None else []
    gepa_adapter: GEPAAdapter[EvalItem, Trajectory, Any] = adapter
    try:
        result: GEPAResult[Any, Any] = gepa.optimize(
            seed_candidate=seed,
            trainset=train,
            valset=val,
            adapter=gepa_adapter,
            reflection_lm=reflection,
            max_metric_calls=max_metric_calls,
            stop_callbacks=stoppers,
            run_dir=str(run_dir),
            logger=ProgressLog(run_dir / "run_log.txt"),
            reflection_minibatch_size=min(3, len(train)),
            display_progress_bar=False,
            raise_on_exception=False,
            seed=0,
        )
    finally:
        reflection.close()
        loop.close()
    scored = [
        (adapter.variant_of(_prompts(candidate)), float(score))
        for candidate, score in zip(result.candidates, result.val_aggregate_scores, strict=True)
    ]
    return EvolveResult(
        best=adapter.variant_of(_prompts(result.best_candidate)),
        seed=adapter.variant_of(seed),
        scores=scored,
        metric_calls=int(getattr(result, "total_metric_calls", 0) or 0),
        spend=adapter.spend,
    )


def _prompts(candidate: str | dict[str, str]) -> dict[str, str]:
    if isinstance(candidate, str):
        raise EvolveError("gepa returned a bare string, not prompts by role")
    return dict(candidate)
