"""The offline baseline over a folder of several documents, when the run may nest agents:
one child agent per document (``rlm_query_batched``), then a merge.

Each child is the baseline again, over one document: it searches it and answers with its
quotes. The parent's cell gathers every child's quotes (QA's ``evidence``, a brief's
``passages``) and ranks them as the single-agent search ranks what it read (``search_lines``
over the children's quotes, which are the documents' own words), printing the same lines; its
next step answers from them as it always does. Past ``MAX_CHILDREN`` documents, each child
gets a run of consecutive documents instead of one. In the LCM mode the same is a call of the
``rlm_query_batched`` tool, and the quotes it returns are ranked by ``lcm_worker``.
"""

from __future__ import annotations

import re
from typing import Any

from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.worker import (
    FOUND_PREFIX,
    PASSAGES_SHOWN,
    needed_terms,
    search_terms,
    shipped_code,
)

MAX_CHILDREN = 12
"""Children the baseline starts at most (each costs a sub-call of the run's budget)."""
CAN_START = "`rlm_query(prompt, context=None) -> dict`: start a child agent"
"""How the RLM prompt says that ``rlm_query`` starts children (``agents.recursion``)."""
HANDED = "The text your parent agent handed you"
"""How a child agent's prompt describes its ``context`` (``agents.recursion.CHILD_CONTEXT``)."""

DOCUMENTS_LINE = re.compile(r"^- `documents`: list, ([\d,]+) entries\.", re.MULTILINE)
LCM_DOCUMENT_LINE = re.compile(r"^- (.+) \([\w-]+(?:, [\d,]+ pages?)?\): [\d,]+-[\d,]+$")
"""A document of the LCM prompt's list (``lcm_prompt.describe_document``)."""
JOINS = "It joins these documents (spans into `context`):"

MERGE_CALL = """
import json
_names = [d["name"] for d in documents]
_size = -(-len(_names) // {most})
_groups = [_names[i : i + _size] for i in range(0, len(_names), _size)]
_results = rlm_query_batched([[{query!r}, group] for group in _groups])
_quotes = []
for _group, _result in zip(_groups, _results):
    if _result["error"]:
        print("child over", ", ".join(_group), "failed:", _result["error"][:300])
    _output = _result["output"] or {{}}
    _quotes.extend(_output.get("evidence") or _output.get("passages") or [])
print(len(_results), "children,", len(_quotes), "quotes")
for line in search_lines(
    _quotes, [], {terms!r}, {focus!r}, {leave_out!r}, need={need}, shown={shown},
    found_prefix={found_prefix!r}, tables={tables!r},
):
    print(line)
"""


def documents_to_split(system: str) -> int:
    """How many documents the agent's ``documents`` table holds when its ``rlm_query`` can
    start child agents (0 otherwise: at the deepest level, or with one document)."""
    if CAN_START not in system:
        return 0
    match = DOCUMENTS_LINE.search(system)
    count = int(match[1].replace(",", "")) if match else 0
    return count if count > 1 else 0


def lcm_documents(system: str) -> list[str]:
    """The documents an LCM agent's prompt lists when its ``rlm_query`` can start child
    agents and they are more than one (else none)."""
    if CAN_START not in system or JOINS not in system:
        return []
    listed = system.split(JOINS, 1)[1].split("\n")[1:]
    names = []
    for line in listed:
        match = LCM_DOCUMENT_LINE.match(line)
        if match is None:
            break
        names.append(match[1])
    return names if len(names) > 1 else []


def lcm_items(query: str, names: list[str]) -> list[list[Any]]:
    """``rlm_query_batched``'s items for an LCM agent: the question over one document each
    (over a run of consecutive documents past ``MAX_CHILDREN``)."""
    size = -(-len(names) // MAX_CHILDREN)
    return [[query, names[i : i + size]] for i in range(0, len(names), size)]


def quotes_returned(returned: object) -> list[str]:
    """The quotes (QA's ``evidence``, a brief's ``passages``) of the children in an
    ``rlm_query_batched`` tool result (parsed from its JSON)."""
    quotes: list[str] = []
    for child in returned if isinstance(returned, list) else []:
        output = child.get("output") if isinstance(child, dict) else None
        if isinstance(output, dict):
            found = output.get("evidence") or output.get("passages") or []
            quotes += [str(quote) for quote in found]
    return quotes


def answers_a_part(system: str) -> bool:
    """Whether the agent is a child, answering over the part of the documents it was handed
    (see ``worker.qa_output``'s ``part``); its parent's merge answers by the usual rules, as
    its answer is the whole question's."""
    return HANDED in system


def children_code(query: str, steering: Steering, *, tables: bool = False) -> str:
    """The cell that asks one child per document (or run of documents) the question and
    ranks their quotes together."""
    terms = [t for t in search_terms(query) if t not in steering.leave_out]
    return shipped_code() + MERGE_CALL.format(
        most=MAX_CHILDREN,
        query=query,
        terms=terms,
        focus=steering.focus,
        leave_out=steering.leave_out,
        need=needed_terms(query, steering),
        shown=PASSAGES_SHOWN,
        found_prefix=FOUND_PREFIX,
        tables=tables,
    )
