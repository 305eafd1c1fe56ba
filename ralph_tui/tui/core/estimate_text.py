"""What the run form and the confirmation say of an estimate, in a few short lines (the
form is a narrow column). No Textual here: the words are tested without the app."""

from __future__ import annotations

from ralph_tui.counts import counted
from ralph_tui.estimates import Figures, ModeEstimate, RunEstimate


def short_tokens(count: float) -> str:
    """``950``, ``21.5k``, ``115M``."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if count >= size:
            shown = count / size
            return f"{shown:.1f}{unit}" if shown < 10 else f"{shown:,.0f}{unit}"
    return f"{count:.0f}"


def cost_and_tokens(figures: Figures) -> str:
    """``$0.16, 21.5k tokens`` (``cost unknown, 21.5k tokens``)."""
    cost = figures.describe_cost()
    if figures.cost_usd is not None and figures.cost_usd >= 100:
        cost = f"${figures.cost_usd:,.0f}"
    return f"{cost}, {short_tokens(figures.tokens)} tokens"


def mode_lines(mode: ModeEstimate) -> list[str]:
    lines = [
        f"{mode.mode}{' (selected)' if mode.selected else ''}: {mode.basis}",
        f"  expected {cost_and_tokens(mode.expected)}",
        f"  ({counted(mode.expected_iterations, 'iteration')}"
        f" of {mode.per_iteration.describe_cost()})",
        f"  worst {cost_and_tokens(mode.worst)}",
    ]
    lines += [f"  {stop.message}" for stop in mode.cap_stops]
    lines += [f"  {note}" for note in mode.notes]
    return lines


def form_summary(estimate: RunEstimate) -> str:
    """The form's estimate: the selected mode in full, the others by their expected cost."""
    shown = estimate.selected
    lines = ["Estimate (no model called)"]
    if shown is None:
        lines.append("inner mode picked at run time:")
    else:
        lines += mode_lines(shown)
    others = [m for m in estimate.modes if m is not shown]
    if shown is None:
        lines += [f"  {m.mode}: expected {cost_and_tokens(m.expected)}" for m in others]
    elif others:
        lines.append(
            "other modes: "
            + ", ".join(f"{m.mode} {cost_and_tokens(m.expected).split(',')[0]}" for m in others)
        )
    return "\n".join(lines)


def confirmation_text(estimate: RunEstimate) -> str:
    """What the confirmation before a run says: the figures and the caps they reach."""
    modes = [estimate.selected] if estimate.selected is not None else estimate.modes
    lines = []
    for mode in modes:
        if mode is not None:
            lines += mode_lines(mode)
    reached = estimate.caps_reached()
    if reached:
        lines += [
            "",
            f"The expected figure reaches {' and '.join(reached)}: the run would likely stop "
            "capped, with its best candidate so far.",
        ]
    cap = "none" if estimate.cost_cap_usd is None else f"${estimate.cost_cap_usd:.2f}"
    tokens = "none" if estimate.token_cap is None else f"{estimate.token_cap:,} tokens"
    lines += ["", f"Cost cap: {cap}; token cap: {tokens}."]
    return "\n".join(lines)
