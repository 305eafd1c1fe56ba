"""The offline baseline as an LCM worker: the tools it calls, and what it reads back.

It never sees the document, only what its tools return. Its first turn greps the document
for each search term and retrieves passages for the whole query from the run's index (the
document's and fetched pages' alike), when it may; its second reads a window around the best
places of the document — where the rarest terms meet; its third answers from the sentences
of what it read and retrieved, with the same sentence search and the same honest "not found"
as the RLM baseline (a term no grep found and no passage holds counts as missing)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.llm.offline import children, worker
from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.sentences import (
    answering_rows,
    candidates,
    quotable,
    rank_sentences,
    sentences_from_second,
    verbatim,
)
from ralph_tui.llm.offline.text import Rarity
from ralph_tui.llm.types import ChatMessage, ToolDefinition
from ralph_tui.words import term_set

HITS_PER_TERM = 12
RETRIEVED = 4
WINDOW_CHARS = 1400
WINDOWS = 5
READ_HEADER = re.compile(r"^\[context (\d+)-(\d+) of ([\d,]+) characters\]\n")

Call = tuple[str, dict[str, Any]]


@dataclass
class Findings:
    """What the tools returned so far: hits per grep pattern, retrieved document spans and
    passage texts (of every source), texts read."""

    hits: dict[str, list[int]] = field(default_factory=dict)
    retrieved: list[int] = field(default_factory=list)
    passages: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    searched: bool = False

    @classmethod
    def of(cls, messages: list[ChatMessage]) -> Findings:
        calls = {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}
        found = cls()
        for message in messages:
            call = calls.get(message.tool_call_id or "")
            if message.role != "tool" or call is None:
                continue
            found.searched = True
            found.take(call.name, _arguments(call.arguments), message.content)
        return found

    def take(self, tool: str, arguments: dict[str, Any], result: str) -> None:
        if tool == "read":
            text = _read_text(result)
            if text:
                self.read.append(text)
            return
        value = _json(result)
        if tool == "grep" and isinstance(value, dict):
            term = str(arguments.get("pattern", ""))
            self.hits[term] = [hit["span"][0] for hit in value.get("hits", []) if "span" in hit]
        elif tool == "rlm_query_batched":
            self.passages += children.quotes_returned(value)
        elif tool == "retrieve" and isinstance(value, list):
            self.retrieved += [p["span"][0] for p in value if p.get("source") == "doc"]
            # No context here: a passage is quoted from its start only where it opens its
            # page or document.
            self.passages += [quotable(p, "") for p in value if p.get("text")]


def from_a_start(read: str) -> str:
    """A read window (whole lines) from where a sentence may start: past its first
    sentence when its first line opens in lower case, inside a sentence wrapped over lines
    ("this License, each Contributor ...")."""
    return sentences_from_second(read) if read.lstrip()[:1].islower() else read


def _arguments(raw: str) -> dict[str, Any]:
    value = _json(raw)
    return value if isinstance(value, dict) else {}


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _read_text(result: str) -> str:
    """What ``read`` returned, trimmed to whole lines (a window's cut first and last lines
    dropped, unless they are the document's own start or end)."""
    header = READ_HEADER.match(result)
    if header is None:
        return ""
    start, end, size = int(header[1]), int(header[2]), int(header[3].replace(",", ""))
    text = result[header.end() :].split("\n[cut at ", 1)[0]
    if start > 0 and "\n" in text:
        text = text.split("\n", 1)[1]
    if end < size and "\n" in text:
        text = text.rsplit("\n", 1)[0]
    return text


def term_pattern(prefix: str) -> str:
    return r"(?i)\b" + re.escape(prefix)


def windows(found: Findings, size_hint: int = WINDOW_CHARS) -> list[tuple[int, int]]:
    """Up to ``WINDOWS`` places to read, best first: each hit's neighbourhood (mostly what
    follows it), scored by the rarity of the distinct terms it holds (a retrieved passage
    counts as one term)."""
    weight = {term: 1 / len(spans) for term, spans in found.hits.items() if spans}
    points = [p for spans in found.hits.values() for p in spans] + found.retrieved
    half = size_hint // 2

    def score(at: int) -> float:
        near = sum(w for t, w in weight.items() if any(abs(p - at) <= half for p in found.hits[t]))
        return near + sum(0.5 for p in found.retrieved if abs(p - at) <= half)

    chosen: list[tuple[int, int]] = []
    for at in sorted(set(points), key=lambda p: (-score(p), p)):
        if len(chosen) == WINDOWS:
            break
        if all(abs(at - (a + b) // 2) > half for a, b in chosen):
            # What follows a hit (a heading's section, a table under its caption) says
            # more than what precedes it: a quarter of the window before, the rest after.
            chosen.append((max(0, at - half // 2), at + size_hint - half // 2))
    return chosen


def play(
    messages: list[ChatMessage],
    tools: frozenset[str],
    output: ToolDefinition,
    fields: dict[str, Any],
    steering: Steering,
    rarity: Rarity | None = None,
    system: str = "",
) -> list[Call]:
    """The calls of the next turn: search, then read, then submit (weighing the question's
    terms by their ``rarity``); over several documents, when its ``system`` prompt lets it
    start child agents, ask one per document first and answer from their quotes."""
    query = str(fields.get("query") or fields.get("task") or "")
    search_for = " ".join([query, *map(str, fields.get("docReaderHints") or [])])
    terms = [t for t in worker.search_terms(search_for) if t not in steering.leave_out]
    prefixes = worker.grep_prefixes(search_for, terms + steering.focus)
    found = Findings.of(messages)
    names = children.lcm_documents(system) if "rlm_query_batched" in tools else []
    if names and not found.searched:
        return [("rlm_query_batched", {"items": children.lcm_items(search_for, names)})]
    if not found.searched:
        calls: list[Call] = [
            ("grep", {"pattern": term_pattern(prefix), "limit": HITS_PER_TERM})
            for prefix in dict.fromkeys(prefixes.values())
        ]
        if "retrieve" in tools:
            for source in worker.RETRIEVED_SOURCES:
                asked = {"query": search_for, "k": RETRIEVED, "sources": [source]}
                calls.append(("retrieve", asked))
        return calls
    places = windows(found)
    if not found.read and places:
        return [("read", {"start": a, "end": b}) for a, b in places]
    retrieved = term_set(" ".join(found.passages))
    present = [
        t
        for t in terms + steering.focus
        if found.hits.get(term_pattern(prefixes[t])) or t in retrieved
    ]
    answers = "evidence" in output.parameters.get("properties", {})
    ranked = rank_sentences(
        candidates(found.passages, ["\n\n".join(map(from_a_start, found.read))], not answers),
        terms,
        steering.focus,
        steering.leave_out,
        worker.needed_terms(query, steering),
        present,
    )
    passages = list(dict.fromkeys(ranked))
    if answers:
        # The table rows naming what is asked come first, read as the search code reads them.
        rows = dict(answering_rows([*found.read, *found.passages], terms, steering.leave_out))
        observation = worker.FOUND_PREFIX + json.dumps(present)
        part = children.answers_a_part(system)
        output_fields = worker.qa_output(
            [*rows, *passages], query, observation, steering, rarity, part=part, readings=rows
        )
        return [(output.name, output_fields)]
    sources = [*found.read, *found.passages]
    composed = {passage for passage in passages if not verbatim(passage, sources)}
    return [(output.name, worker.brief_output(passages, composed))]
