"""A held-out needle check over a real manual: ten facts none of the retrieval's tuning saw
(``HELD_OUT``, not ``needles.NEEDLES``), planted at random paragraph breaks of a manual people
wrote, each asked about in other words than its own; recall@5 of each leg and of the whole
pipeline, as ``bench/retrieval.py`` measures them. Prints one JSON object.

    .venv/bin/python bench/held_out.py MANUAL.txt [--size 20000000] [--seed 7]

The manual is read as text and repeated (whole) up to ``--size`` characters when it is
shorter. On the project's machine the manual is the system's man pages (sections 3 and 1)
rendered to text (``man -l PAGE | col -bx``) up to 20 MB: a reference manual of many
programs and functions, where words like "file", "input", "option" and "program" are
everywhere and the needles' names are nowhere else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from needles import Needle, plant
from retrieval import measure_text

HELD_OUT = [
    Needle(
        "The Varnholt press ships every printing plate in a crate lined with cork shavings.",
        "What packing material protects the plates that Varnholt's print shop sends out?",
    ),
    Needle(
        "Surveyor Emeka Adeyemi mapped the Tollan marshes on foot over eleven wet summers.",
        "How long did it take Emeka Adeyemi to chart the Tollan wetlands?",
    ),
    Needle(
        "The Grisedale choir rehearses in a disused tannery because the chapel roof leaks.",
        "Why do the Grisedale singers practise in an old leather works?",
    ),
    Needle(
        "Beekeeper Sunniva Dahl moves her hives to the heather moors of Rindal every August.",
        "When does Sunniva Dahl take her bee colonies up to the Rindal uplands?",
    ),
    Needle(
        "The Caldero ropeway carries milk churns down from the summer dairies twice a day.",
        "How often does Caldero's cable line bring the cans of milk down the mountain?",
    ),
    Needle(
        "Archivist Phineas Oduya restored the Marrow Street ledgers with wheat starch paste.",
        "What glue did Phineas Oduya use to mend the old Marrow Street account books?",
    ),
    Needle(
        "The Sellick ferry timetable was printed on linen after the paper edition washed away.",
        "On what fabric did Sellick's boat schedule end up being produced?",
    ),
    Needle(
        "Luthier Agathe Morvan carves her violin scrolls from pear wood felled in Brittany.",
        "Which tree's timber does Agathe Morvan shape the heads of her fiddles from?",
    ),
    Needle(
        "The Hexworth tram depot heats its workshop with the waste warmth of a bakery next door.",
        "Where does the warmth for the Hexworth streetcar garage's repair shop come from?",
    ),
    Needle(
        "Falconer Rashid Benali feeds his goshawk quail eggs on the evening before a hunt.",
        "What does Rashid Benali give his hunting bird to eat the night ahead of a chase?",
    ),
]


def manual_text(path: Path, size: int) -> str:
    """The manual's text, repeated whole (paragraph break between) up to ``size`` chars."""
    text = path.read_text(encoding="utf-8", errors="replace")
    parts, total = [], 0
    while total < size:
        parts.append(text)
        total += len(text) + 2
    return "\n\n".join(parts)[:size]


def paged(text: str, page_chars: int) -> list[dict[str, Any]]:
    """A corpus table for ``text`` as one PDF-like document of pages of about
    ``page_chars`` characters, each ending at a blank line (the page separator)."""
    pages: list[dict[str, int]] = []
    start = 0
    while start < len(text):
        cut = text.find("\n\n", start + page_chars)
        end = len(text) if cut < 0 else cut
        pages.append({"page": len(pages) + 1, "start": start, "end": end})
        start = end + 2
    document = {"name": "manual.pdf", "path": "manual.pdf", "format": "pdf"}
    return [{**document, "start": 0, "end": len(text), "pages": pages, "headings": []}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manual", type=Path)
    parser.add_argument("--size", type=int, default=20_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--page-chars", type=int, default=0, help="read as a PDF of pages of this size"
    )
    args = parser.parse_args()
    text, placed = plant(manual_text(args.manual, args.size), HELD_OUT, args.seed)
    table = paged(text, args.page_chars) if args.page_chars else None
    figures = asyncio.run(measure_text(text, placed, table))
    print(json.dumps({"k": 5, "needles": len(HELD_OUT), **figures}, indent=2))


if __name__ == "__main__":
    main()
