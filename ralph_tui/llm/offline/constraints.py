"""What the offline baseline understands in its constraints, read from their plain text.

It understands four kinds, and nothing else (docs/reference/offline.md lists them):

- a constraint starting with ``focus on``, ``mention``, ``include``,
  ``emphasise`` or ``look for`` names terms: they join the search and their passages rank first;
- a constraint starting with ``leave out``, ``exclude``, ``omit``, ``ignore``, ``skip``,
  ``do not mention`` (or ``don't``) or ``without``: passages holding its words are dropped;
- the validator's count feedback (``Give 3 to 7 answer lines``, ``Give 3 to 8 evidence
  quotes``): the relevance bar drops to one question term, so more passages qualify;
- the validator's exact-text feedback (``... here as a JSON string: "..."``): that exact
  document text is quoted first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ralph_tui.words import query_terms

_LEAVE_OUT = re.compile(
    r"^\W*(?:please\s+)?(?:leave out|exclude|omit|ignore|skip|without|"
    r"do not (?:mention|include|quote|use)|don't (?:mention|include|quote|use))\s+(.+)",
    re.IGNORECASE,
)
_FOCUS = re.compile(
    r"^\W*(?:please\s+)?(?:focus on|mention|include|emphasi[sz]e|look for)\s+(.+)",
    re.IGNORECASE,
)
_EXACT = re.compile(r"here as a JSON string: (\".*?(?<!\\)\")")
_MORE = re.compile(r"Give \d+ to \d+ (?:answer lines|evidence quotes)", re.IGNORECASE)


@dataclass(frozen=True)
class Steering:
    """The constraints as the baseline acts on them."""

    focus: list[str] = field(default_factory=list)
    """Search terms a constraint named; passages holding them rank first."""
    leave_out: list[str] = field(default_factory=list)
    """Terms whose passages are dropped."""
    exact_quotes: list[str] = field(default_factory=list)
    """Document text the validator gave verbatim, quoted first."""
    wants_more: bool = False
    """The validator asked for more lines or quotes: accept passages matching one term."""


def read_constraints(constraints: list[str]) -> Steering:
    focus: list[str] = []
    leave_out: list[str] = []
    exact: list[str] = []
    wants_more = False
    for constraint in constraints:
        if found := _EXACT.search(constraint):
            exact.append(json.loads(found.group(1)))
            continue
        if _MORE.search(constraint):
            wants_more = True
            continue
        if found := _LEAVE_OUT.search(constraint):
            leave_out += query_terms(found.group(1))
        elif found := _FOCUS.search(constraint):
            focus += query_terms(found.group(1))
    leave = list(dict.fromkeys(leave_out))
    return Steering(
        focus=[term for term in dict.fromkeys(focus) if term not in leave],
        leave_out=leave,
        exact_quotes=exact,
        wants_more=wants_more,
    )
