"""The offline baseline as a direct worker: the documents are in its prompt, so it runs on
their text, here on the host, the very search its RLM worker sends to the sandbox — the
query's words found case-insensitively, the paragraphs where most of them meet read, their
sentences ranked — and answers from what that search printed, with the same "not found"
when the documents lack most of the question's terms. It is deterministic and needs one
turn: a second comes only when the first was refused, and it answers the same."""

from __future__ import annotations

import re
from typing import Any

from ralph_tui.llm.documents_prompt import PromptDocument
from ralph_tui.llm.offline import worker
from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.sentences import reading_spans, search_lines
from ralph_tui.llm.offline.text import Rarity

PASSAGE_LABEL = re.compile(r"^\[source=(\w+) .*\]$", re.MULTILINE)
"""The label over each passage of the DocReader's ``retrievedContext``."""


def retrieved_passages(context: str) -> list[str]:
    """The passages of a ``retrievedContext`` the worker quotes from (the documents' and
    fetched pages', never past episodes): what its RLM self gets from ``retrieve()``."""
    labels = list(PASSAGE_LABEL.finditer(context))
    ends = [label.start() for label in labels[1:]] + [len(context)] * bool(labels)
    return [
        context[label.end() + 1 : end].strip("\n")
        for label, end in zip(labels, ends, strict=True)
        if label[1] in worker.RETRIEVED_SOURCES
    ]


def observation(
    text: str,
    search_for: str,
    query: str,
    steering: Steering,
    tables: bool,
    retrieved: list[str] | None = None,
) -> str:
    """What the RLM worker's search code would print about ``text`` (and the passages
    ``retrieve()`` gave it)."""
    terms = [t for t in worker.search_terms(search_for) if t not in steering.leave_out]
    prefixes = worker.grep_prefixes(search_for, terms + steering.focus)
    hits = {
        prefix: [match.start() for match in re.finditer(re.escape(prefix), text, re.IGNORECASE)]
        for prefix in dict.fromkeys(prefixes.values())
    }
    read = [text[start:end] for start, end in reading_spans(text, hits)]
    lines = search_lines(
        read, retrieved or [], terms, steering.focus, steering.leave_out,
        need=worker.needed_terms(query, steering), shown=worker.PASSAGES_SHOWN,
        found_prefix=worker.FOUND_PREFIX, tables=tables, whole=text,
    )  # fmt: skip
    return "\n".join(lines)


def play(
    documents: list[PromptDocument],
    fields: dict[str, Any],
    steering: Steering,
    answers: bool,
    rarity: Rarity | None = None,
) -> dict[str, Any]:
    """The output: a QA answer with quotes (``answers``), else a DocReader's brief."""
    text = "\n\n".join(doc.text for doc in documents)
    query = str(fields.get("query") or fields.get("task") or "")
    search_for = " ".join([query, *map(str, fields.get("docReaderHints") or [])])
    retrieved = retrieved_passages(str(fields.get("retrievedContext") or ""))
    printed = observation(text, search_for, query, steering, not answers, retrieved)
    passages = worker.printed_passages(printed)
    if answers:
        return worker.qa_output(passages, query, printed, steering, rarity)
    return worker.brief_output(passages, worker.printed_composed(printed))
