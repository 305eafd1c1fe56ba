"""A needle suite over real prose: facts planted at random places in text people wrote (the
docstrings and comments of Python's standard library), each asked about in other words than
its own — as the single-needle long-context tests of the RLM literature do.

    haystack(size_chars, seed) -> str
    plant(text, needles, seed) -> (text with needles, [(needle, start, end), ...])
"""

from __future__ import annotations

import ast
import random
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class Needle:
    fact: str
    question: str
    """Asked in other words than the fact's: it shares the subject's name, little else."""


NEEDLES = [
    Needle(
        "Orla Fenwick keeps her grandmother's brass telescope in the cellar of the lighthouse "
        "at Kilbride.",
        "Where does Orla Fenwick store the old spyglass that belonged to her nan?",
    ),
    Needle(
        "The Tessaro bakery switched its sourdough starter to rye flour after the flood of "
        "the spring market.",
        "What grain did Tessaro's bread shop begin feeding its leaven with?",
    ),
    Needle(
        "Captain Ilse Moravec logged forty-two icebergs during the convoy's crossing to Halifax.",
        "How many floating ice masses did Ilse Moravec record on the voyage?",
    ),
    Needle(
        "The Quillby observatory replaced its copper dome with an aluminium one in 1987.",
        "Which metal covers the roof of Quillby's stargazing building now?",
    ),
    Needle(
        "Dr. Anselm Korhonen found that the beetles of Lake Vyrn hibernate under birch bark.",
        "According to Anselm Korhonen, where do the insects of Vyrn spend the winter?",
    ),
    Needle(
        "Marguerite Okonkwo's favourite fruit turned out to be the persimmon, her gardener said.",
        "Which fruit does Marguerite Okonkwo like best?",
    ),
    Needle(
        "The Brackwater ferry stops running whenever the wind at the harbour exceeds 50 knots.",
        "Under what weather is the Brackwater boat service suspended?",
    ),
    Needle(
        "Professor Lindqvist taught the choir of Saint Orvar to sing the hymn in Old Norse.",
        "In what ancient tongue did Lindqvist train Saint Orvar's singers?",
    ),
    Needle(
        "The Zembla textile mill dyed its wool with crushed walnut husks to get a deep brown.",
        "What did Zembla's cloth factory use to colour its yarn?",
    ),
    Needle(
        "Yusra Haddad repaired the clock tower of Ostrava Street using parts from a tram.",
        "Where did Yusra Haddad get the components to fix the Ostrava Street timepiece?",
    ),
    Needle(
        "The Pellworth archive stores its oldest maps in a vault kept at eleven degrees.",
        "At what temperature does Pellworth preserve its most ancient charts?",
    ),
    Needle(
        "Chef Dario Benedetti seasons his famous broth with smoked sea salt from Anglesey.",
        "What does Dario Benedetti flavour his soup with?",
    ),
    Needle(
        "The Halvorsen bridge was painted green because the council lost the red paint order.",
        "Why did the Halvorsen crossing end up a different colour than planned?",
    ),
    Needle(
        "Nadia Petrescu trained her falcon to return whenever she rang a small silver bell.",
        "What signal brings Nadia Petrescu's hawk back to her?",
    ),
    Needle(
        "The Corvallan monks brew a honey beer that they sell only on the feast of Saint Brigid.",
        "When can one buy the mead-like ale made by the Corvallan brothers?",
    ),
    Needle(
        "Engineer Tomasz Wielgosz built the dam at Rusk Valley from recycled railway sleepers.",
        "What material did Tomasz Wielgosz reuse to construct the Rusk Valley barrier?",
    ),
    Needle(
        "The village of Ashcombe elects a new mayor every year by drawing pebbles from a jar.",
        "How does Ashcombe pick the person who leads its town?",
    ),
    Needle(
        "Pianist Keiko Arakawa practises scales for three hours before every concert in Lyon.",
        "How long does Keiko Arakawa rehearse before she performs in Lyon?",
    ),
    Needle(
        "The Marlowe lighthouse keeper feeds the island's goats with seaweed in the winter.",
        "What do the Marlowe warden's animals eat during the cold months?",
    ),
    Needle(
        "Ingrid Solheim wrote her first novel on a typewriter she found in a Bergen skip.",
        "Where did Ingrid Solheim come across the machine she typed her debut book on?",
    ),
]


@cache
def _prose_paragraphs() -> tuple[str, ...]:
    """Docstrings of the standard library and the installed packages: English written by
    people, on many topics."""
    paths = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    paths += sorted(Path(sysconfig.get_paths()["purelib"]).rglob("*.py"))
    paragraphs: list[str] = []
    for path in paths:
        if "test" in path.name or "tests" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    for para in doc.split("\n\n"):
                        flat = " ".join(para.split())
                        if len(flat) > 80 and flat.count(" ") > 10:
                            paragraphs.append(flat)
    return tuple(dict.fromkeys(paragraphs))


def haystack(size_chars: int, seed: int = 0) -> str:
    """``size_chars`` of prose: the paragraphs in a shuffled order, again and again."""
    paragraphs = list(_prose_paragraphs())
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size_chars:
        rng.shuffle(paragraphs)
        for paragraph in paragraphs:
            parts.append(paragraph)
            total += len(paragraph) + 2
            if total >= size_chars:
                break
    return "\n\n".join(parts)[:size_chars]


def plant(
    text: str, needles: list[Needle], seed: int = 0
) -> tuple[str, list[tuple[Needle, int, int]]]:
    """``text`` with each needle inserted at a random paragraph break, and where each is."""
    rng = random.Random(seed)
    breaks = sorted(rng.sample(range(len(text)), len(needles)))
    pieces: list[str] = []
    placed: list[tuple[Needle, int, int]] = []
    previous, offset = 0, 0
    for needle, at in zip(needles, breaks, strict=True):
        cut = text.find("\n\n", at)
        cut = len(text) if cut < 0 else cut
        cut = max(cut, previous)
        pieces.append(text[previous:cut])
        offset += cut - previous
        insert = f"\n\n{needle.fact}"
        start = offset + 2
        pieces.append(insert)
        offset += len(insert)
        placed.append((needle, start, start + len(needle.fact)))
        previous = cut
    pieces.append(text[previous:])
    return "".join(pieces), placed
