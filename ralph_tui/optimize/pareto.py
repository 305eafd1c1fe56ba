"""Candidates (variants with measured or projected figures) and their Pareto front over pass
rate (higher is better), latency and cost (lower is better)."""

from __future__ import annotations

from dataclasses import dataclass

from ralph_tui.optimize.evaluator import VariantFigures
from ralph_tui.variants.store import BASELINE, Variant


@dataclass
class Candidate:
    """A variant with the figures it is judged by: measured when sessions ran under it,
    else its heuristic projection (provisional)."""

    variant: str
    pass_rate: float
    latency_s: float
    cost_usd: float | None
    """Per session."""
    measured: VariantFigures | None = None

    @property
    def projected(self) -> bool:
        return self.measured is None

    @property
    def provisional(self) -> bool:
        return self.measured is None or self.measured.provisional


def candidates(variants: list[Variant], figures: dict[str, VariantFigures]) -> list[Candidate]:
    """Every variant (and the baseline, if sessions ran without one) as a candidate."""
    found = []
    if BASELINE in figures:
        found.append(_measured(BASELINE, figures[BASELINE]))
    for variant in variants:
        if variant.id in figures:
            found.append(_measured(variant.id, figures[variant.id]))
        elif variant.projection:
            p = variant.projection
            found.append(Candidate(variant.id, p["pass_rate"], p["latency_s"], p.get("cost_usd")))
    return found


def _measured(name: str, figures: VariantFigures) -> Candidate:
    return Candidate(
        name, figures.pass_rate, figures.mean_latency_s, figures.cost_per_session, figures
    )


def dominates(a: Candidate, b: Candidate) -> bool:
    """``a`` is at least as good as ``b`` everywhere and better somewhere (an unknown cost
    is compared as equal)."""
    cost_known = a.cost_usd is not None and b.cost_usd is not None
    a_cost = a.cost_usd if cost_known and a.cost_usd is not None else 0.0
    b_cost = b.cost_usd if cost_known and b.cost_usd is not None else 0.0
    no_worse = a.pass_rate >= b.pass_rate and a.latency_s <= b.latency_s and a_cost <= b_cost
    better = a.pass_rate > b.pass_rate or a.latency_s < b.latency_s or a_cost < b_cost
    return no_worse and better


def displaces(a: Candidate, b: Candidate) -> bool:
    """``a`` keeps ``b`` off the front: it dominates ``b``, on figures at least as real
    (a projection is a guess, so it never displaces a measured variant)."""
    return (b.projected or not a.projected) and dominates(a, b)


def pareto_front(found: list[Candidate]) -> list[Candidate]:
    """The candidates no other displaces, best pass rate first."""
    front = [c for c in found if not any(displaces(o, c) for o in found if o is not c)]
    return sorted(front, key=lambda c: (-c.pass_rate, c.latency_s))


def best(front: list[Candidate]) -> Candidate | None:
    """The one to run next: the highest pass rate on the front, the faster on a tie."""
    return front[0] if front else None
