"""The estimate of a run: every inner mode's expected and worst-case figures, by role, from a
``RunPlan``, the caps and what past sessions spent. A pure function: no file, no network."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ralph_tui.config import Settings
from ralph_tui.config.inner_modes import choose_inner
from ralph_tui.counts import counted
from ralph_tui.estimates.figures import (
    SETTINGS_ONLY,
    CapStop,
    Figures,
    ModeEstimate,
    RoleFigures,
    RunEstimate,
)
from ralph_tui.estimates.history import Calibration, PastRun, calibration
from ralph_tui.estimates.spend import (
    ESTIMATED_MODES,
    ModelInfo,
    RoleSpend,
    RunPlan,
    expected_iterations,
    fits_window,
    run_spend,
)
from ralph_tui.llm.pricing import Price, price_family, price_of
from ralph_tui.llm.roles import ROLE_SETTINGS, role_specs, role_window

FREE = Price(0.0, 0.0)
"""The offline baseline's price: it runs on this machine and costs nothing."""


def inner_modes() -> tuple[str, ...]:
    """The inner modes a run explores in (``auto`` picks one of them)."""
    return ESTIMATED_MODES


def model_info(settings: Settings, role: str) -> ModelInfo:
    """A role's model as the estimate needs it: its window (as its client reports it) and
    its price (``--price`` first, then the list price; the offline baseline is free)."""
    provider, name = role_specs(settings)[role]
    window = role_window(settings, role)
    given = settings.price_table().get(price_family(name))
    if provider == "offline":
        price: Price | None = FREE
    elif given is not None:
        price = Price(*given)
    else:
        price = price_of(name)
    return ModelInfo(provider, name, window, price)


def plan_of(
    settings: Settings,
    mode: str,
    query: str,
    doc_chars: int,
    *,
    constraints: Sequence[str] = (),
    decompose: bool = False,
    doc_tokens: int | None = None,
) -> RunPlan:
    """The plain inputs of an estimate of a run of ``settings`` over documents of
    ``doc_chars`` characters (``doc_tokens`` of them as a run counts them, when known)."""
    models = {role: model_info(settings, role) for role in ROLE_SETTINGS}
    return RunPlan(
        mode=mode,
        doc_chars=doc_chars,
        query_chars=len(query),
        constraint_chars=sum(len(c) for c in constraints),
        max_iters=settings.max_iters,
        worker_max_steps=settings.worker_max_steps,
        worker_max_llm_calls=settings.worker_max_llm_calls,
        max_runtime_chars=settings.max_runtime_chars,
        sub_query_concurrency=settings.sub_query_concurrency,
        memory_budget_chars=settings.memory_budget_chars,
        generate=models["generate"],
        validate=models["validate"],
        sub=models["sub"],
        decompose=decompose,
        counted_doc_tokens=doc_tokens,
    )


def figures_of(spends: Sequence[RoleSpend]) -> Figures:
    """The sum of ``spends``; the cost is unknown when any model's price is."""
    unknown = sorted({s.model.label for s in spends if s.model.price is None and s.calls})
    costs = [s.cost() for s in spends]
    return Figures(
        calls=math.ceil(sum(s.calls for s in spends) - 1e-9),
        input_tokens=round(sum(s.input_tokens for s in spends)),
        output_tokens=round(sum(s.output_tokens for s in spends)),
        cost_usd=None if unknown else round(sum(c or 0.0 for c in costs), 6),
        unknown_price=unknown,
    )


def cap_stops(
    worst: Figures, spends: Sequence[RoleSpend], plan: RunPlan, cost_cap: float | None,
    token_cap: int | None,
) -> list[CapStop]:  # fmt: skip
    """Where each cap the worst case passes stops the run: at the cap, plus what the calls
    under way when it is reached add (the cap is checked before each call; sub-calls run
    ``sub_query_concurrency`` at once)."""
    stops: list[CapStop] = []
    largest = [_largest_call(s, plan) for s in spends if s.calls]
    if cost_cap is not None:
        if worst.cost_usd is None:
            stops.append(
                CapStop(
                    cap="cost", limit=cost_cap, at_most=None,
                    message=f"the ${cost_cap:.2f} cost cap cannot stop it: the price of "
                    f"{', '.join(worst.unknown_price)} is unknown (give it with --price)",
                )
            )  # fmt: skip
        elif worst.cost_usd > cost_cap:
            extra = max((call.cost() or 0.0 for call in largest), default=0.0)
            stops.append(
                CapStop(
                    cap="cost", limit=cost_cap, at_most=cost_cap + extra,
                    message=f"the ${cost_cap:.2f} cost cap stops it by "
                    f"${cost_cap + extra:.2f} at most",
                )
            )  # fmt: skip
    if token_cap is not None and worst.tokens > token_cap:
        extra_tokens = max((c.input_tokens + c.output_tokens for c in largest), default=0.0)
        at_most = token_cap + extra_tokens
        stops.append(
            CapStop(
                cap="tokens", limit=token_cap, at_most=at_most,
                message=f"the {token_cap:,}-token cap stops it by {at_most:,.0f} tokens at most",
            )
        )  # fmt: skip
    return stops


def _largest_call(spend: RoleSpend, plan: RunPlan) -> RoleSpend:
    """A bound on a role's largest single call (sub-calls: as many as run at once): no
    prompt passes the model's window, no reply its share of the role's output."""
    at_once = min(plan.sub_query_concurrency, spend.calls) if spend.role == "sub" else 1
    prompt = min(spend.input_tokens, spend.model.window)
    reply = spend.output_tokens / spend.calls
    return RoleSpend(spend.role, spend.model, at_once, prompt * at_once, reply * at_once)


def mode_estimate(
    plan: RunPlan,
    mode: str,
    *,
    selected: bool,
    past: Sequence[PastRun],
    cost_cap: float | None,
    token_cap: int | None,
) -> ModeEstimate:
    """One inner mode's figures, calibrated by ``past`` sessions where there are any."""
    calibrated: Calibration | None = calibration(plan, mode, list(past)) if past else None
    iterations = calibrated.iterations if calibrated else expected_iterations(plan.max_iters)
    expected = run_spend(plan, mode, iterations, worst=False)
    one = run_spend(plan, mode, 1, worst=False)
    if calibrated is not None:
        expected = [s.scaled(calibrated.input_factor, calibrated.output_factor) for s in expected]
        one = [s.scaled(calibrated.input_factor, calibrated.output_factor) for s in one]
    worst = run_spend(plan, mode, plan.max_iters, worst=True)
    worst_figures = figures_of(worst)
    notes: list[str] = []
    fits = fits_window(plan, mode)
    if not fits:
        notes.append(
            f"the documents ({plan.doc_tokens:,} tokens) do not fit "
            f"{plan.generate.label}'s context window ({plan.generate.window:,})"
        )
    if plan.decompose:
        notes.append("with --decompose each sub-task is a run of its own: not counted here")
    return ModeEstimate(
        mode=mode,
        selected=selected,
        basis=(counted(calibrated.sessions, "past session") if calibrated else SETTINGS_ONLY),
        past_sessions=calibrated.sessions if calibrated else 0,
        expected_iterations=round(iterations, 2),
        fits=fits,
        expected=figures_of(expected),
        per_iteration=figures_of(one),
        worst=worst_figures,
        cap_stops=cap_stops(worst_figures, worst, plan, cost_cap, token_cap),
        roles=_role_figures(expected, worst),
        notes=notes,
    )


def _role_figures(expected: list[RoleSpend], worst: list[RoleSpend]) -> list[RoleFigures]:
    keys = list(dict.fromkeys((s.role, s.model.label) for s in [*expected, *worst]))
    return [
        RoleFigures(
            role=role,
            model=label,
            expected=figures_of([s for s in expected if (s.role, s.model.label) == (role, label)]),
            worst=figures_of([s for s in worst if (s.role, s.model.label) == (role, label)]),
        )
        for role, label in keys
    ]


def estimate_run(
    plan: RunPlan,
    *,
    inner: str,
    cost_cap_usd: float | None,
    token_cap: int | None,
    past: Mapping[str, Sequence[PastRun]] | None = None,
    modes: Sequence[str] | None = None,
) -> RunEstimate:
    """The estimate of ``plan`` in every inner mode (``modes``, default every mode a run
    explores in), the one the run would explore in marked: the one ``inner`` names, or the
    one ``auto``'s rule picks for these documents and this window."""
    past = past or {}
    chosen, reason = inner, f"the inner setting is {inner}"
    if inner == "auto":
        pick = choose_inner(plan.doc_tokens, plan.generate.window)
        chosen, reason = pick.mode, f"auto: {pick.reason}"
    return RunEstimate(
        mode=plan.mode,
        inner=inner,
        inner_reason=reason,
        doc_chars=plan.doc_chars,
        doc_tokens=plan.doc_tokens,
        max_iters=plan.max_iters,
        cost_cap_usd=cost_cap_usd,
        token_cap=token_cap,
        modes=[
            mode_estimate(
                plan,
                mode,
                selected=mode == chosen,
                past=past.get(mode, ()),
                cost_cap=cost_cap_usd,
                token_cap=token_cap,
            )
            for mode in (modes or inner_modes())
        ],
    )
