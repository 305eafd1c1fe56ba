"""``ralph-tui optimize`` (and the seed's ``run --optimize``): the variants table with
measured or projected figures, the Pareto front, and the active variant."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ralph_tui.cli.run_flags import settings_from_args
from ralph_tui.config import Settings, SettingsError
from ralph_tui.optimize.pareto import Candidate
from ralph_tui.optimize.run import NoSessionsError, OptimizeReport, optimize
from ralph_tui.variants.store import UnknownVariantError, VariantStore

EXIT_OK, EXIT_USAGE = 0, 2


def add_optimize_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "optimize",
        help="measure each configuration variant from the sessions and pick the next",
        description="Evaluate the stored sessions per variant, propose new variants, keep "
        "the Pareto front (pass rate, latency, cost) and make its best the active variant.",
    )
    add_optimize_flags(parser)


def add_optimize_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", dest="out_dir", default=None, help="the out dir (default: out)")
    parser.add_argument("--propose", type=int, default=3, help="new variants at most")
    parser.add_argument("--activate", metavar="ID", help="make this variant active, and stop")
    parser.add_argument("--no-activate", action="store_true", help="leave the active one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_optimize(args: argparse.Namespace) -> int:
    try:
        settings = _settings(args)
        if args.activate:
            VariantStore(settings.out_dir).activate(args.activate)
            print(f"active variant: {args.activate}")
            return EXIT_OK
        if args.propose < 0:
            raise ValueError("--propose is 0 or more")
        report = optimize(settings, args.propose, activate=not args.no_activate)
    except (NoSessionsError, UnknownVariantError, SettingsError, ValueError) as exc:
        print(f"ralph-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(report_json(report)))
    else:
        print("\n".join(report_lines(report)))
    return EXIT_OK


def _settings(args: argparse.Namespace) -> Settings:
    if hasattr(args, "max_iters"):  # run --optimize: every run flag is there
        return settings_from_args(args)
    from ralph_tui.config import load_settings

    return load_settings({"out_dir": args.out_dir} if args.out_dir else {})


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


def report_lines(report: OptimizeReport) -> list[str]:
    """The variants table: ``*`` on the Pareto front, ``>`` active, ``~`` provisional."""
    lines = [
        f"  {'variant':<10} {'sessions':>8} {'pass':>5} {'mean s':>7} {'p90 s':>7} "
        f"{'issues/it':>9} {'retries':>7} {'$/pass':>8}  change"
    ]
    for c in report.candidates:
        m = c.measured
        marks = (">" if c.variant == report.active else " ") + (
            "*" if report.on_front(c.variant) else " "
        )
        variant = report.variants.get(c.variant)
        figures = (
            f"{m.sessions:>8} {c.pass_rate:>5.0%} {c.latency_s:>7.1f} {m.p90_latency_s:>7.1f} "
            f"{m.issue_density:>9.2f} {m.retries:>7.2f} {_usd(m.cost_per_pass):>8}"
            if m
            else f"{'-':>8} {c.pass_rate:>5.0%} {c.latency_s:>7.1f} {'-':>7} {'-':>9} "
            f"{'-':>7} {'-':>8}"
        )
        note = (variant.change if variant else "no variant") + (
            "  (provisional: projected)" if m is None
            else "  (provisional: few sessions)" if c.provisional else ""
        )  # fmt: skip
        lines.append(f"{marks}{c.variant:<10} {figures}  {note}")
    lines += ["", "> active   * on the Pareto front (pass rate, latency, cost)"]
    if report.proposed:
        lines.append(f"proposed: {', '.join(v.id for v in report.proposed)}")
    lines.append(f"active variant: {report.active or 'none'} (the next runs use it; "
                 "--variant ID picks another, --variant baseline none)")  # fmt: skip
    return lines


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"
