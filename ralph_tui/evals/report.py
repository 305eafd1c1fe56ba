"""An eval's results as text: the items' table, the means, and for a needle suite the
grid of found by size and depth with a bar per size (the CLI prints it, the app shows it)."""

from __future__ import annotations

from ralph_tui.evals.plot import size_label, text_plot
from ralph_tui.evals.scoring import ItemScore, SuiteSummary


def score_table(eval_id: str, scores: list[ItemScore], summary: SuiteSummary) -> list[str]:
    """The table of items, the means, and for a needle suite the grid by size and depth."""
    lines = [f"eval {eval_id}: {summary.items} items", ""]
    lines.append(f"{'item':<24} {'status':<9} {'facts':>5} {'ev.P':>5} {'ev.R':>5} "
                 f"{'iters':>5} {'calls':>5} {'tokens':>8} {'wall s':>7}")  # fmt: skip
    for s in scores:
        lines.append(
            f"{s.id[:24]:<24} {s.status:<9} {s.facts_found}/{s.facts_total:<3} "
            f"{_fraction(s.evidence_precision):>5} {_fraction(s.evidence_recall):>5} "
            f"{s.iterations:>5} {s.llm_calls:>5} {s.tokens:>8,} {s.wall_s:>7.1f}"
        )
    lines += [
        "",
        f"passed {summary.passed:.0%}, found {summary.found:.0%}, evidence precision "
        f"{_fraction(summary.evidence_precision)}, recall {_fraction(summary.evidence_recall)}; "
        f"mean {summary.mean_iterations:g} iterations, {summary.mean_llm_calls:g} calls, "
        f"{summary.mean_tokens:,.0f} tokens, {summary.mean_wall_s:.1f} s",
    ]
    if summary.by_size_depth:
        depths = sorted({d for row in summary.by_size_depth.values() for d in row})
        lines += ["", "found by size (rows) and depth (columns):",
                  f"{'':>6} " + " ".join(f"{d:>5}" for d in depths)]  # fmt: skip
        for size, row in sorted(summary.by_size_depth.items(), key=lambda kv: int(kv[0])):
            cells = " ".join(f"{'yes' if row.get(d) else ('no' if d in row else '-'):>5}"
                             for d in depths)  # fmt: skip
            lines.append(f"{size_label(int(size)):>6} {cells}")
        lines += ["", *text_plot(scores)]
    return lines


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def modes_table(eval_id: str, rows: list[tuple[str, SuiteSummary]]) -> list[str]:
    """One suite run under several inner modes, one row per mode: the share passed and
    found, the evidence's precision and recall, and what a run took on average (LLM calls,
    tokens, wall time) with the whole suite's cost."""
    items = rows[0][1].items if rows else 0
    lines = [f"eval {eval_id}: {items} items under {len(rows)} inner modes", ""]
    lines.append(f"{'inner':<7} {'passed':>6} {'found':>6} {'ev.P':>5} {'ev.R':>5} "
                 f"{'calls':>6} {'tokens':>9} {'cost':>9} {'wall s':>7}")  # fmt: skip
    for mode, s in rows:
        cost = "-" if s.total_cost_usd is None else f"${s.total_cost_usd:.4f}"
        lines.append(
            f"{mode:<7} {s.passed:>6.0%} {s.found:>6.0%} {_fraction(s.evidence_precision):>5} "
            f"{_fraction(s.evidence_recall):>5} {s.mean_llm_calls:>6.1f} {s.mean_tokens:>9,.0f} "
            f"{cost:>9} {s.mean_wall_s:>7.1f}"
        )
    lines += ["", "calls, tokens and wall s: the mean of an item; cost: the whole suite's"]
    return lines
