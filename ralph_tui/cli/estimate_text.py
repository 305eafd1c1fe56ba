"""An estimate as a person reads it on the command line: one line per inner mode, then the
selected mode's roles."""

from __future__ import annotations

from ralph_tui.estimates import Figures, ModeEstimate, RunEstimate


def _tokens(figures: Figures) -> str:
    return f"{figures.input_tokens:,} in / {figures.output_tokens:,} out"


def _cap(estimate: RunEstimate) -> str:
    cost = (
        "no cost cap" if estimate.cost_cap_usd is None else f"cost cap ${estimate.cost_cap_usd:.2f}"
    )
    tokens = "no token cap" if estimate.token_cap is None else f"token cap {estimate.token_cap:,}"
    return f"{cost}, {tokens}"


def _mode_rows(estimate: RunEstimate) -> list[list[str]]:
    rows = [
        ["", "mode", "basis", "iterations", "expected tokens", "cost", "an iteration",
         "worst tokens", "cost"]
    ]  # fmt: skip
    for mode in estimate.modes:
        rows.append(
            [
                "*" if mode.selected else "",
                mode.mode,
                mode.basis,
                f"{mode.expected_iterations:g}",
                _tokens(mode.expected),
                mode.expected.describe_cost(),
                mode.per_iteration.describe_cost(),
                _tokens(mode.worst),
                mode.worst.describe_cost(),
            ]
        )
    return rows


def _aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]  # fmt: skip


def _role_rows(mode: ModeEstimate) -> list[list[str]]:
    rows = [["role", "model", "expected", "cost", "worst", "cost"]]
    for role in mode.roles:
        rows.append(
            [
                role.role,
                role.model,
                f"{role.expected.calls} calls, {_tokens(role.expected)}",
                role.expected.describe_cost(),
                f"{role.worst.calls:,} calls, {_tokens(role.worst)}",
                role.worst.describe_cost(),
            ]
        )
    return rows


def estimate_lines(estimate: RunEstimate) -> list[str]:
    """The estimate as a readable table."""
    inner = estimate.inner_reason or estimate.inner
    lines = [
        f"Estimate of a {estimate.mode} run over {estimate.doc_tokens:,} document tokens "
        f"({estimate.doc_chars:,} characters), up to {estimate.max_iters} iterations; "
        f"{_cap(estimate)}; inner mode: {inner}. No model was called.",
        "",
        *_aligned(_mode_rows(estimate)),
    ]
    for mode in estimate.modes:
        for stop in mode.cap_stops:
            lines.append(f"{mode.mode}: worst case {mode.worst.describe_cost()}: {stop.message}")
        for note in mode.notes:
            lines.append(f"{mode.mode}: {note}")
        if mode.worst.unknown_price:
            lines.append(
                f"{mode.mode}: cost unknown: no price for {', '.join(mode.worst.unknown_price)}"
                " (give it with --price MODEL=IN/OUT)"
            )
    shown = estimate.selected or estimate.modes[0]
    lines += ["", f"{shown.mode} by role (expected over {shown.expected_iterations:g} "
              f"iterations; worst over {estimate.max_iters}):"]  # fmt: skip
    lines += ["  " + line for line in _aligned(_role_rows(shown))]
    lines += [
        "",
        "expected: rests on the basis shown (settings only: how each mode was measured to "
        "spend; N past sessions: what the out dir's sessions of the same models spent). "
        "worst: every step, sub-call, retry and iteration the settings allow, caps aside.",
    ]
    lines += [f"note: {note}" for note in estimate.notes]
    return lines
