"""Scores of one item (passed validation, expected facts found, evidence against the gold
spans, and what the run spent) and of a suite (means, and a table by size and depth)."""

from __future__ import annotations

import re
import statistics
from typing import Any

from pydantic import BaseModel

from ralph_tui.evals.suite import EvalItem
from ralph_tui.llm.tokens import estimate_tokens


class ItemScore(BaseModel):
    """How one item went."""

    id: str
    session_id: str = ""
    status: str
    passed: bool
    """The run passed its validation (hard checks and judge)."""
    facts_found: int = 0
    facts_total: int = 0
    evidence_precision: float | None = None
    """Of the evidence's characters, the share inside a gold span (None: no gold spans,
    or no evidence located)."""
    evidence_recall: float | None = None
    """Of the gold spans' characters, the share the evidence covers."""
    iterations: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost_usd: float | None = 0.0
    wall_s: float = 0.0
    doc_tokens: int = 0
    """The document's size, estimated (the x of the plot)."""
    error: str | None = None
    meta: dict[str, Any] = {}

    @property
    def found(self) -> bool:
        """Every expected fact is in the answer (an item without facts: it passed)."""
        return self.facts_found == self.facts_total if self.facts_total else self.passed


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w.%]+", " ", text.lower()).split())


def facts_in(answer: str, facts: list[str]) -> int:
    """How many of ``facts`` the answer holds (case, punctuation and spacing aside)."""
    said = _normal(answer)
    return sum(1 for fact in facts if _normal(fact) in said)


def span_overlap(
    found: list[tuple[int, int]], gold: list[tuple[int, int]]
) -> tuple[float | None, float | None]:
    """(precision, recall) by characters of the ``found`` spans against the ``gold``."""
    if not gold or not found:
        return None, (0.0 if gold else None)
    found_chars = _cover(found)
    gold_chars = _cover(gold)
    inside = len(found_chars & gold_chars)
    return inside / len(found_chars), inside / len(gold_chars)


def _cover(spans: list[tuple[int, int]]) -> set[int]:
    return {i for start, end in spans for i in range(start, end)}


def answer_text(output: dict[str, Any] | None) -> str:
    """The text an item's facts are looked for in: the QA answer and its evidence, or the
    task's output."""
    if not output:
        return ""
    parts = [str(output.get("answer", "")), str(output.get("output", ""))]
    parts += [str(q) for q in output.get("evidence", []) or []]
    return "\n".join(parts)


def score_item(
    item: EvalItem,
    outcome: dict[str, Any],
    document: str,
    wall_s: float,
) -> ItemScore:
    """The score of ``item`` from its run's outcome (``RunOutcome`` fields as JSON) and the
    document's text as the run read it."""
    output = outcome.get("output")
    usage = outcome.get("usage") or {}
    spans = []
    for quote in (output or {}).get("evidence", []) or []:
        start = document.find(str(quote)) if quote else -1
        if start >= 0:
            spans.append((start, start + len(str(quote))))
    precision, recall = span_overlap(spans, item.expect.evidence_spans)
    return ItemScore(
        id=item.id,
        session_id=str(outcome.get("session_id", "")),
        status=str(outcome.get("status", "error")),
        passed=outcome.get("status") == "passed",
        facts_found=facts_in(answer_text(output), item.expect.facts),
        facts_total=len(item.expect.facts),
        evidence_precision=precision,
        evidence_recall=recall,
        iterations=int(outcome.get("iterations", 0)),
        llm_calls=int(usage.get("calls", 0)),
        tokens=_figure(usage, "input_tokens", "inputTokens")
        + _figure(usage, "output_tokens", "outputTokens"),
        cost_usd=_cost(usage),
        wall_s=round(wall_s, 3),
        doc_tokens=estimate_tokens(document),
        error=outcome.get("error"),
        meta=item.meta,
    )


def _figure(usage: dict[str, Any], name: str, camel: str) -> int:
    """A count of a run's usage: the batch hands over the ledger's snapshot (snake_case),
    ``--json`` writes camelCase."""
    return int(usage.get(name, usage.get(camel)) or 0)


def _cost(usage: dict[str, Any]) -> float | None:
    """The run's known cost; ``None`` when no answered call had a known price."""
    if "costUsd" in usage:
        cost = usage["costUsd"]
        return None if cost is None else float(cost)
    answered = int(usage.get("calls", 0)) - int(usage.get("failed_calls", 0))
    unknown = int(usage.get("unknown_cost_calls", 0))
    if 0 < unknown == answered:
        return None
    return float(usage.get("cost_usd", 0.0))


class SuiteSummary(BaseModel):
    items: int
    passed: float
    found: float
    evidence_precision: float | None
    evidence_recall: float | None
    mean_iterations: float
    mean_llm_calls: float
    mean_tokens: float
    total_cost_usd: float | None
    mean_wall_s: float
    by_size_depth: dict[str, dict[str, float]] = {}
    """For a ``needle`` suite: the share found, by size (tokens) then depth."""


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def summarise(scores: list[ItemScore]) -> SuiteSummary:
    costs = [s.cost_usd for s in scores]
    table: dict[str, dict[str, float]] = {}
    for score in scores:
        if "size_tokens" in score.meta and "depth" in score.meta:
            row = table.setdefault(str(score.meta["size_tokens"]), {})
            row[f"{float(score.meta['depth']):.2f}"] = 1.0 if score.found else 0.0
    return SuiteSummary(
        items=len(scores),
        passed=_mean([float(s.passed) for s in scores]) or 0.0,
        found=_mean([float(s.found) for s in scores]) or 0.0,
        evidence_precision=_mean(
            [s.evidence_precision for s in scores if s.evidence_precision is not None]
        ),
        evidence_recall=_mean([s.evidence_recall for s in scores if s.evidence_recall is not None]),
        mean_iterations=_mean([float(s.iterations) for s in scores]) or 0.0,
        mean_llm_calls=_mean([float(s.llm_calls) for s in scores]) or 0.0,
        mean_tokens=_mean([float(s.tokens) for s in scores]) or 0.0,
        total_cost_usd=None if None in costs else round(sum(c or 0.0 for c in costs), 6),
        mean_wall_s=_mean([s.wall_s for s in scores]) or 0.0,
        by_size_depth=table,
    )
