"""The ``needle`` suite: one fact planted at a chosen depth of real prose of a chosen size,
asked about in other words than its own — the single-needle long-context test.

The prose is the bundled handbook's paragraphs, shuffled afresh on each pass (seeded) until
the size is reached; the fact goes in at the paragraph boundary nearest its depth. Each
needle names something the handbook never does, so the fact is findable only where it was
planted; its question names that thing and asks about the fact in other words."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.atomic import write_atomic
from ralph_tui.evals.suite import EvalItem, Expectation, SuiteError
from ralph_tui.llm.tokens import CHARS_PER_TOKEN
from ralph_tui.sample import sample_document

HANDBOOK = sample_document()
DEFAULT_SIZES = (8_000, 64_000, 256_000)
DEFAULT_DEPTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
MIN_TOKENS, MAX_TOKENS = 1_000, 2_000_000


@dataclass(frozen=True)
class Needle:
    fact: str
    question: str
    answer: str


NEEDLES = (
    Needle(
        "The spare key to the Pellow Ridge booster station is held by Tamsin Orrell at the "
        "Fenwick depot.",
        "Who looks after the duplicate key for the Pellow Ridge pumping site?",
        "Tamsin Orrell",
    ),
    Needle(
        "Calibration of the Quarrendon turbidity probe falls due every 41 days under the "
        "supplier's warranty terms.",
        "How frequently must the Quarrendon turbidity sensor be recalibrated?",
        "41 days",
    ),
    Needle(
        "Since the spring of 2023 the Ravensgill emergency radio net has operated on 462.7 MHz.",
        "At what frequency are Ravensgill alarm calls now made, since the change?",
        "462.7 MHz",
    ),
    Needle(
        "Everyone visiting the Ottery Mill intake signs a yellow ledger that the gate warden, "
        "Priya Nandakumar, keeps.",
        "Whose register must guests at the Ottery Mill intake put their names in?",
        "Priya Nandakumar",
    ),
    Needle(
        "The Corvale sludge lagoon was lined with a 2.5 millimetre HDPE membrane by Dunmore "
        "Civils in 2022.",
        "How thick is the lining of the Corvale settling pond?",
        "2.5 millimetre",
    ),
)


def parse_size(text: str) -> int:
    """``8k``, ``64K``, ``1m`` or ``8000`` as tokens; ``SuiteError`` says what is wrong."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if match is None:
        raise SuiteError(f"{text!r} is not a size in tokens (e.g. 8k, 64k, 1m)")
    tokens = int(float(match[1]) * {"": 1, "k": 1_000, "m": 1_000_000}[match[2].lower()])
    if not MIN_TOKENS <= tokens <= MAX_TOKENS:
        raise SuiteError(f"{text!r}: a size is between 1k and 2m tokens")
    return tokens


def parse_depth(text: str) -> float:
    try:
        depth = float(text)
    except ValueError:
        raise SuiteError(f"{text!r} is not a depth (a fraction from 0 to 1)") from None
    if not 0.0 <= depth <= 1.0:
        raise SuiteError(f"{text!r}: a depth is a fraction from 0 (start) to 1 (end)")
    return depth


def haystack(tokens: int, seed: int) -> list[str]:
    """Paragraphs of the handbook, reshuffled on each pass, about ``tokens`` long."""
    paragraphs = [p for p in HANDBOOK.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    rng = random.Random(seed)
    chosen: list[str] = []
    size, target = 0, tokens * CHARS_PER_TOKEN
    while size < target:
        batch = paragraphs[:]
        rng.shuffle(batch)
        for paragraph in batch:
            if size >= target:
                break
            chosen.append(paragraph)
            size += len(paragraph) + 2
    return chosen


def plant(paragraphs: list[str], fact: str, depth: float) -> tuple[str, tuple[int, int]]:
    """The prose with ``fact`` as a paragraph at the boundary nearest ``depth``, and its
    span."""
    at = round(depth * len(paragraphs))
    before = "\n\n".join(paragraphs[:at])
    start = len(before) + 2 if before else 0
    text = "\n\n".join([*paragraphs[:at], fact, *paragraphs[at:]])
    return text, (start, start + len(fact))


def needle_suite(
    folder: Path,
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    depths: tuple[float, ...] = DEFAULT_DEPTHS,
    seed: int = 7,
) -> list[EvalItem]:
    """One item per size and depth, its document written to ``folder`` (a needle of
    ``NEEDLES`` each, in turn)."""
    folder.mkdir(parents=True, exist_ok=True)
    items: list[EvalItem] = []
    for size in sizes:
        prose = haystack(size, seed + size)
        for depth in depths:
            needle = NEEDLES[len(items) % len(NEEDLES)]
            text, span = plant(prose, needle.fact, depth)
            name = f"needle-{_label(size)}-d{round(depth * 100):03d}"
            path = folder / f"{name}.md"
            write_atomic(path, text)
            items.append(
                EvalItem(
                    id=name,
                    query=needle.question,
                    doc=path,
                    expect=Expectation(facts=[needle.answer], evidence_spans=[span]),
                    meta={"size_tokens": size, "depth": depth},
                )
            )
    return items


def _label(tokens: int) -> str:
    if tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}m"
    return f"{tokens // 1000}k" if tokens % 1000 == 0 else str(tokens)
