"""The inner modes — how the exploring roles (the QA worker, the DocReader) read the
documents — each described once, and the one rule ``auto`` picks a mode by.

The setting's doc, the app's form and the documentation read ``INNER_MODES``; the run,
``--estimate`` and the app read ``choose_inner``. Both are pure: no model call, no file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ralph_tui.errors import UsageError

InnerChoice = Literal["rlm", "lcm", "direct", "auto"]
InnerMode = Literal["rlm", "lcm", "direct"]
"""A mode a run actually explores in (``auto`` resolves to one of these)."""

INNER_MODES: dict[InnerChoice, str] = {
    "rlm": "the model writes code in a sandbox",
    "lcm": "the model calls operators as tools",
    "direct": "the model reads the documents whole in its prompt",
    "auto": "direct, lcm or rlm by the documents' size and the model's window",
}
"""One line per mode: what the model does in it."""

ANSWER_ROOM_TOKENS = 6144
"""What a ``direct`` prompt needs beside the documents: the role's instructions, the query,
the constraints, an earlier output, the memory (about 4,096 tokens at most) and the reply
(the worker's and the DocReader's are bounded at 2,048)."""

DIRECT_SHARE = 0.5
"""``auto`` answers directly when the documents take at most this share of the window: the
rest leaves room for the answer, and a model reads a half-full window well (published
comparisons show a plain long-context call beating RLM on short documents)."""


@dataclass(frozen=True)
class InnerPick:
    """The mode a run explores in, and why (a line for the run header and the record)."""

    mode: InnerMode
    reason: str
    chosen_by: Literal["setting", "auto"] = "setting"


def direct_fits(tokens: int, window: int) -> bool:
    """Whether documents of ``tokens`` leave the window room for the rest of the prompt and
    the answer (``ANSWER_ROOM_TOKENS``)."""
    return tokens + ANSWER_ROOM_TOKENS <= window


def choose_inner(tokens: int, window: int) -> InnerPick:
    """``auto``'s rule, from the documents' size (``tokens``) and the generate model's
    context ``window``:

    - ``direct`` when the documents take at most half the window (and leave room for the
      answer): one call reads them all, and its prefix is cached across steps and
      iterations;
    - ``lcm`` when they would fit the window but crowd it (more than half): answering from a
      nearly full window reads badly and pays for every token at each step, while a few
      ``grep`` and ``read`` calls cover a document of this size, with no sandbox to start
      and no code for a model to get wrong;
    - ``rlm`` when they do not fit at all: the model explores in code, slicing the text and
      fanning sub-calls out over it, which is what scales past the window."""
    share = tokens / window if window else float("inf")
    sizes = f"the documents (~{tokens:,} tokens) take {share:.0%} of the {window:,}-token window"
    if share <= DIRECT_SHARE and direct_fits(tokens, window):
        return InnerPick("direct", f"{sizes}: at most half, so they go in the prompt", "auto")
    if direct_fits(tokens, window):
        why = "more than half, so the model reads them through tools"
        return InnerPick("lcm", f"{sizes}: {why}", "auto")
    why = "they do not fit, so the model explores them in code"
    return InnerPick("rlm", f"{sizes}: {why}", "auto")


class DirectDoesNotFit(UsageError):
    """``--inner direct`` with documents too large for the generate model's window."""

    title = "The documents do not fit the prompt"


def resolve_inner(choice: InnerChoice, tokens: int, window: int) -> InnerPick:
    """The mode a run with the ``inner`` setting ``choice`` explores in; ``DirectDoesNotFit``
    (before any call) when ``direct`` is asked for and the documents do not fit."""
    if choice == "auto":
        return choose_inner(tokens, window)
    if choice == "direct" and not direct_fits(tokens, window):
        raise DirectDoesNotFit(
            f"--inner direct: the documents (~{tokens:,} tokens) and the "
            f"{ANSWER_ROOM_TOKENS:,} tokens the prompt and the answer need do not fit the "
            f"generate model's {window:,}-token context window",
            hint="use --inner rlm, lcm or auto, or a model with a bigger window; for a local "
            "server, give its window with --context-window",
        )
    return InnerPick(choice, f"the inner setting is {choice}")


def inner_modes_help() -> str:
    """The modes as the setting's doc lists them."""
    return "; ".join(f"`{mode}`: {what}" for mode, what in INNER_MODES.items())
