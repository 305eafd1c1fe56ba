"""The optimizer's report as JSON, as a table (``>`` active, ``*`` on the Pareto front),
and its front as a text scatter of pass rate against latency."""

from __future__ import annotations

from typing import Any

from ralph_tui.optimize.pareto import Candidate
from ralph_tui.optimize.run import OptimizeReport


def candidate_json(c: Candidate, report: OptimizeReport) -> dict[str, Any]:
    variant = report.variants.get(c.variant)
    m = c.measured
    return {
        "variant": c.variant,
        "parent": variant.parent if variant else None,
        "change": variant.change if variant else "",
        "knobs": variant.knobs if variant else {},
        "measured": m is not None,
        "provisional": c.provisional,
        "sessions": m.sessions if m else 0,
        "passRate": c.pass_rate,
        "meanLatencyS": c.latency_s,
        "p90LatencyS": m.p90_latency_s if m else None,
        "issueDensity": m.issue_density if m else None,
        "retries": m.retries if m else None,
        "costPerSession": c.cost_usd,
        "costPerPass": m.cost_per_pass if m else None,
        "pareto": report.on_front(c.variant),
        "active": c.variant == report.active,
    }


def report_json(report: OptimizeReport) -> dict[str, Any]:
    return {
        "variants": [candidate_json(c, report) for c in report.candidates],
        "front": [c.variant for c in report.front],
        "active": report.active,
        "proposed": [v.id for v in report.proposed],
    }


TABLE_HEADER = (
    f"  {'variant':<10} {'sessions':>8} {'pass':>5} {'mean s':>7} {'p90 s':>7} "
    f"{'issues/it':>9} {'retries':>7} {'$/pass':>8}  change"
)


def candidate_line(c: Candidate, report: OptimizeReport) -> str:
    """One row of the variants table (``>`` active, ``*`` on the front)."""
    m = c.measured
    variant = report.variants.get(c.variant)
    figures = (
        f"{m.sessions:>8} {c.pass_rate:>5.0%} {c.latency_s:>7.1f} {m.p90_latency_s:>7.1f} "
        f"{m.issue_density:>9.2f} {m.retries:>7.2f} {_usd(m.cost_per_pass):>8}"
        if m
        else f"{'-':>8} {c.pass_rate:>5.0%} {c.latency_s:>7.1f} {'-':>7} {'-':>9} {'-':>7} {'-':>8}"
    )
    note = (variant.change if variant else "no variant") + (
        "  (provisional: projected)" if m is None
        else "  (provisional: few sessions)" if c.provisional else ""
    )  # fmt: skip
    return f"{row_marks(c, report)}{c.variant:<10} {figures}  {note}"


def report_lines(report: OptimizeReport) -> list[str]:
    """The variants table, what the marks mean, and the active variant."""
    lines = [TABLE_HEADER, *(candidate_line(c, report) for c in report.candidates)]
    lines += ["", "> active   * on the Pareto front (pass rate, latency, cost)"]
    if report.proposed:
        lines.append(f"proposed: {', '.join(v.id for v in report.proposed)}")
    lines.append(f"active variant: {report.active or 'none'} (the next runs use it; "
                 "--variant ID picks another, --variant baseline none)")  # fmt: skip
    return lines


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def row_marks(c: Candidate, report: OptimizeReport) -> str:
    return (">" if c.variant == report.active else " ") + (
        "*" if report.on_front(c.variant) else " "
    )


def front_plot(report: OptimizeReport, width: int = 48, height: int = 10) -> list[str]:
    """Pass rate (up) against mean latency (right): ``◆`` the active variant, ``●`` on the
    front, ``·`` the others; a legend names each point's variant."""
    found = report.candidates
    if not found:
        return ["No variants measured or projected yet."]
    low = min(c.latency_s for c in found)
    high = max(c.latency_s for c in found)
    grid = [[" "] * width for _ in range(height)]
    legend = []
    for c in found:
        x = 0 if high == low else round((c.latency_s - low) / (high - low) * (width - 1))
        y = height - 1 - round(c.pass_rate * (height - 1))
        mark = "◆" if c.variant == report.active else "●" if report.on_front(c.variant) else "·"
        grid[y][x] = mark
        legend.append(f"{mark} {c.variant}: {c.pass_rate:.0%} passed, {c.latency_s:.1f} s")
    lines = [f"{'100%' if n == 0 else ' 0%' if n == height - 1 else '':>4} |{''.join(row)}"
             for n, row in enumerate(grid)]  # fmt: skip
    lines.append(f"{'':>4} +{'-' * width}")
    lines.append(f"{'':>5}{low:.1f} s{'mean latency':^{width - 16}}{high:.1f} s")
    return [*lines, "", *legend]
