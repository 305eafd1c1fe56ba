"""The plot of an eval: the share of items found and passed against the context size, as
a self-contained HTML file (inline SVG, no script) to share, and as text for a terminal."""

from __future__ import annotations

import html
import math
from pathlib import Path

from ralph_tui.atomic import write_atomic
from ralph_tui.evals.scoring import ItemScore

WIDTH, HEIGHT, MARGIN = 640, 320, 48
SERIES = (("found", "#2a9d8f"), ("passed", "#e76f51"))


def by_size(scores: list[ItemScore]) -> list[tuple[int, float, float]]:
    """(size in tokens, share found, share passed) per context size, smallest first."""
    groups: dict[int, list[ItemScore]] = {}
    for score in scores:
        size = int(score.meta.get("size_tokens") or score.doc_tokens)
        groups.setdefault(size, []).append(score)
    return [
        (size, _share([s.found for s in group]), _share([s.passed for s in group]))
        for size, group in sorted(groups.items())
    ]


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def size_label(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:g}M"
    return f"{tokens / 1000:g}K" if tokens >= 1000 else str(tokens)


def svg(points: list[tuple[int, float, float]]) -> str:
    """Both shares against log size, with axes, ticks and a legend."""
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    logs = [math.log10(max(size, 1)) for size, *_ in points] or [0.0]
    low, high = min(logs), max(logs)
    span = high - low or 1.0

    def x(size: int) -> float:
        offset = (math.log10(max(size, 1)) - low) / span if high > low else 0.5
        return MARGIN + offset * inner_w

    def y(share: float) -> float:
        return MARGIN + (1 - share) * inner_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        'font-family="sans-serif" font-size="12">',
        f'<line x1="{MARGIN}" y1="{y(0)}" x2="{WIDTH - MARGIN}" y2="{y(0)}" stroke="#888"/>',
        f'<line x1="{MARGIN}" y1="{y(0)}" x2="{MARGIN}" y2="{y(1)}" stroke="#888"/>',
    ]
    for share in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{MARGIN - 8}" y="{y(share) + 4}" text-anchor="end">{share:.0%}</text>'
        )
    for size, *_ in points:
        parts.append(
            f'<text x="{x(size):.1f}" y="{y(0) + 18}" text-anchor="middle">'
            f"{size_label(size)}</text>"
        )
    for index, (name, colour) in enumerate(SERIES):
        coords = " ".join(f"{x(p[0]):.1f},{y(p[1 + index]):.1f}" for p in points)
        parts.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        parts += [
            f'<circle cx="{x(p[0]):.1f}" cy="{y(p[1 + index]):.1f}" r="4" fill="{colour}"/>'
            for p in points
        ]
        parts.append(
            f'<text x="{WIDTH - MARGIN}" y="{18 + 16 * index}" text-anchor="end" '
            f'fill="{colour}">{name}</text>'
        )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{HEIGHT - 8}" text-anchor="middle">context size (tokens)'
        "</text></svg>"
    )
    return "\n".join(parts)


def write_plot(path: Path, title: str, scores: list[ItemScore]) -> None:
    points = by_size(scores)
    rows = "".join(
        f"<tr><td>{size_label(size)}</td><td>{found:.0%}</td><td>{passed:.0%}</td></tr>"
        for size, found, passed in points
    )
    page = (
        f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<h1>{html.escape(title)}</h1>{svg(points)}"
        "<table border='1' cellpadding='4'><tr><th>size</th><th>found</th><th>passed</th></tr>"
        f"{rows}</table>"
    )
    write_atomic(path, page)


def text_plot(scores: list[ItemScore], width: int = 40) -> list[str]:
    """One bar per context size: ``  64K ██████████░░░░  75% found, 50% passed``."""
    lines = []
    for size, found, passed in by_size(scores):
        filled = round(found * width)
        lines.append(
            f"{size_label(size):>6} {'█' * filled}{'░' * (width - filled)} "
            f"{found:4.0%} found, {passed:.0%} passed"
        )
    return lines
