"""The ``sample`` suite: questions about the bundled handbook, each with the facts its
answer must hold and the sentences its evidence should come from (gold spans)."""

from __future__ import annotations

from ralph_tui.evals.needle import HANDBOOK
from ralph_tui.evals.suite import EvalItem, Expectation
from ralph_tui.sample import SAMPLE_QUESTION

QUESTIONS: tuple[tuple[str, str, list[str], list[str]], ...] = (
    (
        "backwash",
        SAMPLE_QUESTION,
        ["48 hours", "2.1 metres"],
        [
            "Each filter is backwashed after 48 hours in service.",
            "A filter is backwashed earlier if its head loss reaches 2.1 metres",
        ],
    ),
    (
        "on-call",
        "How quickly must the on-call duty manager reach the site and answer the duty phone?",
        ["60 minutes", "10 minutes"],
        [
            "The duty manager must be able to reach the site within 60 minutes of being "
            "called and must answer the duty phone within 10 minutes at any hour.",
        ],
    ),
    (
        "generator",
        "How long can the standby generator run on its fuel, and what is the minimum stock?",
        ["72 hours", "48 hours"],
        [
            "The fuel tank holds enough diesel for 72 hours of running at full load, and the "
            "stock must not fall below 48 hours' worth.",
        ],
    ),
    (
        "blend",
        "What share of raw water comes from the river and from the reservoir normally?",
        ["70 per cent", "30 per cent"],
        [
            "Under normal conditions the works takes about 70 per cent of its raw water from "
            "the river and 30 per cent from the reservoir.",
        ],
    ),
    (
        "storm",
        "What river turbidity did Storm Ebba cause, and when is the intake reopened?",
        ["140 NTU", "40 NTU"],
        [
            "Heavy rain from Storm Ebba raised River Aldern turbidity to a peak of 140 NTU",
            "the intake is reopened only when river turbidity has stayed below 40 NTU for six "
            "hours.",
        ],
    ),
    (
        "shifts",
        "How long is each shift, and how many shift technicians are on site?",
        ["twelve hours", "Two shift technicians"],
        [
            "Each shift lasts twelve hours",
            "Two shift technicians are on site at all times",
        ],
    ),
)


def sample_suite() -> list[EvalItem]:
    """The questions as items over the handbook, each gold quote located in it."""
    text = HANDBOOK.read_text(encoding="utf-8")
    items = []
    for name, query, facts, quotes in QUESTIONS:
        spans = []
        for quote in quotes:
            start = text.find(quote)
            if start < 0:
                raise RuntimeError(f"the sample suite's quote is not in the handbook: {quote}")
            spans.append((start, start + len(quote)))
        items.append(
            EvalItem(
                id=f"sample-{name}",
                query=query,
                doc=HANDBOOK,
                expect=Expectation(facts=facts, evidence_spans=spans),
            )
        )
    return items
