"""A count and its noun in the right number, said one way everywhere a person reads one.

``counted(1, "call")`` is ``1 call``, ``counted(1204, "passage")`` is ``1,204 passages``,
``counted(2, "entry", "entries")`` names its plural when adding an ``s`` would not do.
"""

from __future__ import annotations


def noun_for(count: float, noun: str, plural: str | None = None) -> str:
    """``noun`` in the number ``count`` asks for (one is singular, anything else plural)."""
    return noun if count == 1 else plural or f"{noun}s"


def counted(count: float, noun: str, plural: str | None = None) -> str:
    """``count`` (thousands separated; a fraction as short as it goes) and its noun."""
    number = f"{count:,}" if isinstance(count, int) else f"{count:,.3g}"
    return f"{number} {noun_for(count, noun, plural)}"
