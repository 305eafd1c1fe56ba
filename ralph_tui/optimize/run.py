"""``optimize``: evaluate the sessions, propose variants from the best measured one, keep
the Pareto front, and make its best the active variant for the next runs — which record
it, so the next ``optimize`` measures what was projected."""

from __future__ import annotations

from dataclasses import dataclass

from ralph_tui.config import Settings
from ralph_tui.errors import UsageError
from ralph_tui.optimize.evaluator import VariantFigures, evaluate
from ralph_tui.optimize.pareto import Candidate, best, candidates, pareto_front
from ralph_tui.optimize.propose import propose
from ralph_tui.traces.store import TraceStore
from ralph_tui.variants.store import Variant, VariantStore

NO_SESSIONS = (
    "no finished sessions in {out} to optimize from: run some first, e.g. `ralph-tui run "
    "--query ... --doc ... --out {out}` or `ralph-tui eval --suite sample --out {out}`, then "
    "optimize again"
)


class NoSessionsError(UsageError):
    """Nothing to measure yet: the message says what to run first."""

    title = "Nothing to optimize yet"


@dataclass
class OptimizeReport:
    candidates: list[Candidate]
    front: list[Candidate]
    active: str | None
    proposed: list[Variant]
    variants: dict[str, Variant]

    def on_front(self, name: str) -> bool:
        return any(c.variant == name for c in self.front)


def survey(settings: Settings, only: set[str] | None = None) -> OptimizeReport:
    """The variants as they stand — measured, projected, the front, the active one — with
    nothing proposed or changed (what the app shows)."""
    store = VariantStore(settings.out_dir)
    figures = evaluate(TraceStore(settings.out_dir), only)
    return _report(figures, store, {v.id: v for v in store.all()})


def _report(
    figures: dict[str, VariantFigures],
    store: VariantStore,
    known: dict[str, Variant],
    proposed: list[Variant] | None = None,
) -> OptimizeReport:
    found = candidates(list(known.values()), figures)
    return OptimizeReport(found, pareto_front(found), store.active_id(), proposed or [], known)


def optimize(
    settings: Settings,
    proposals: int = 3,
    activate: bool = True,
    only: set[str] | None = None,
) -> OptimizeReport:
    """One turn of the loop (``NoSessionsError`` when there is nothing to measure); with
    ``only``, measured over those sessions alone."""
    figures = evaluate(TraceStore(settings.out_dir), only)
    if not figures:
        raise NoSessionsError(NO_SESSIONS.format(out=settings.out_dir))
    store = VariantStore(settings.out_dir)
    known = {v.id: v for v in store.all()}
    measured = max(figures.values(), key=lambda f: (f.pass_rate, -f.mean_latency_s))
    parent = known.get(measured.variant)
    proposed = propose(parent, measured, settings, set(known), proposals) if proposals else []
    for variant in proposed:
        store.save(variant)
        known[variant.id] = variant
    report = _report(figures, store, known, proposed)
    chosen = best(report.front)
    if activate and chosen is not None:
        store.activate(chosen.variant)
        report.active = store.active_id()
    return report
