"""New variants from the best measured one: each changes one knob the runs' provider acts
on, with a heuristic projection of its figures (provisional until sessions run under it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ralph_tui.config import Settings
from ralph_tui.llm.factory import takes_temperature
from ralph_tui.optimize.evaluator import VariantFigures
from ralph_tui.variants.store import KNOBS, Variant, variant_id


@dataclass(frozen=True)
class Move:
    """A change of one knob and what it is expected to do."""

    change: str
    knob: str
    value: Callable[[Any], Any]
    """The knob's new value from its old one."""
    pass_gain: float
    """Share of the remaining failures (or, when < 0, of the passes) it is expected to turn."""
    latency_factor: float
    useful: Callable[[VariantFigures], bool] = lambda _f: True


MOVES = (
    Move("worker steps x1.5", "worker_max_steps", lambda n: min(int(n * 1.5), 400), 0.15, 1.3,
         lambda f: f.pass_rate < 1.0),
    Move("one more iteration", "max_iters", lambda n: n + 1, 0.2, 1.25,
         lambda f: f.retries > 0.5 or f.pass_rate < 1.0),
    Move("worker steps x0.6", "worker_max_steps", lambda n: max(int(n * 0.6), 4), -0.05, 0.7),
    Move("retrieval topK +3", "top_k", lambda n: n + 3, 0.05, 1.05,
         lambda f: f.issue_density > 0.0),
    Move("temperature 0.2", "temperature", lambda _t: 0.2, 0.03, 1.0),
)  # fmt: skip


def ignored_knobs(settings: Settings) -> frozenset[str]:
    """Knobs the runs' provider does not act on, so a change of them measures nothing."""
    return frozenset() if takes_temperature(settings) else frozenset({"temperature"})


def knobs_of(settings: Settings, variant: Variant | None) -> dict[str, Any]:
    """Every knob's value under ``variant`` (its own, else the settings')."""
    values = {knob: getattr(settings, knob) for knob in KNOBS}
    return {**values, **(variant.knobs if variant else {})}


def propose(
    parent: Variant | None,
    figures: VariantFigures,
    settings: Settings,
    known: set[str],
    limit: int = 3,
) -> list[Variant]:
    """Up to ``limit`` new variants, one move each from ``parent``'s knobs (moves that would
    make a variant already ``known`` are skipped)."""
    base = knobs_of(settings, parent)
    prompts = dict(parent.prompts) if parent else {}
    made: list[Variant] = []
    ignored = ignored_knobs(settings)
    for move in MOVES:
        if len(made) == limit:
            break
        if move.knob in ignored or not move.useful(figures):
            continue
        knobs = {**base, move.knob: move.value(base[move.knob])}
        if knobs["top_k"] > settings.top_n:
            continue
        changed = {k: v for k, v in knobs.items() if v != getattr(settings, k)}
        new_id = variant_id(changed, prompts)
        if new_id in known or knobs == base:
            continue
        gain = move.pass_gain * (1 - figures.pass_rate if move.pass_gain > 0 else figures.pass_rate)
        cost = figures.cost_per_session
        made.append(
            Variant(
                id=new_id,
                parent=parent.id if parent else None,
                change=move.change,
                knobs=changed,
                prompts=prompts,
                projection={
                    "pass_rate": min(max(figures.pass_rate + gain, 0.0), 1.0),
                    "latency_s": figures.mean_latency_s * move.latency_factor,
                    **({"cost_usd": cost * move.latency_factor} if cost is not None else {}),
                },
            )
        )
        known.add(new_id)
    return made
