"""Telling an agent that is stuck from one that is trying: the same unusable turn, with the
same result, again and again.

Every turn that does not end the agent's steps has a *repeat key*: an output refused for a
problem (the problem normalised — a validation error's field locations and error types,
never the values that change from call to call), a turn without a tool call, or code or
tool calls run with what they returned. ``STUCK_REPEATS`` equal keys in a row end the
agent's steps early: nothing new can come of its next turn, and each one costs a request.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

STUCK_REPEATS = 3
"""Equal turns in a row after which an agent stops as stuck (documented in
docs/reference/inner-modes.md)."""

RepeatKind = Literal["invalid", "no_call", "code", "tools"]


@dataclass(frozen=True)
class Repeat:
    """What one turn came to, as far as repeating goes: ``key`` is equal for two turns
    that did the same thing with the same result; ``problem`` says it to a person."""

    kind: RepeatKind
    key: str
    problem: str

    @classmethod
    def of_run(cls, kind: Literal["code", "tools"], *parts: str) -> Repeat:
        """A turn that ran code (or called tools) and got a result: ``parts`` are what
        was run and what came back."""
        digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
        what = "code with the same output" if kind == "code" else "tool calls with the same results"
        return cls(kind, digest, f"the same {what}")


NO_CALL = Repeat("no_call", "", "no tool call")


@dataclass
class RepeatWatch:
    """The turns of one agent run, as far as repeating goes: the last one and how many
    equal ones came in a row up to it."""

    last: Repeat | None = None
    count: int = 0

    def see(self, turn: Repeat) -> int:
        """Note ``turn``; how many equal turns in a row end with it."""
        same = self.last is not None and (self.last.kind, self.last.key) == (turn.kind, turn.key)
        self.count = self.count + 1 if same else 1
        self.last = turn
        return self.count

    @property
    def stuck(self) -> bool:
        return self.count >= STUCK_REPEATS


def repeat_warning(count: int) -> str:
    """What the model is told beside a turn that repeated its previous one, while it still
    can change course (empty otherwise)."""
    left = STUCK_REPEATS - count
    if count < 2 or left < 1:
        return ""
    times = "once more" if left == 1 else f"{left} more times"
    return (
        f"\n(The same as your previous turn, {count} in a row: {times} and this attempt "
        "stops. Do something different.)"
    )
