"""The LCM agent's system prompt, and how a document is described to a model that never
sees it whole: its size, its headings with where they are, and a few samples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ralph_tui.agents.output_tool import OUTPUT_TOOL_NAME
from ralph_tui.counts import counted
from ralph_tui.documents.convert import markdown_headings

MAX_HEADINGS = 40
SAMPLES = 3
SAMPLE_CHARS = 240

LCM_TEMPLATE = """{definition}

## How you work
You cannot see the document whole: it is described below, and you explore it with tools.
Call one or more tools each turn and read what they return. When you have the final answer,
call `{tool}` with the output fields ({fields}); they are validated, and you are told what to
fix if they do not pass.

## The document
{description}

## Tools
{tools}
## Budgets
- {max_steps} turns in all; sub-model calls (`llm_map` items): {max_llm_calls} in all.
- A tool result longer than {max_output_chars} characters is cut to its head and tail, so ask
  for slices and a few hits at a time.

## Method
Start from the headings and samples, `grep` for the names and terms of the task, `retrieve`
for passages that match its meaning, `read` around the best hits, and use `llm_map` for
questions over many passages. Copy quotes from what `read` returned exactly, character for
character.
"""


def describe_document(text: str, table: list[dict[str, Any]] | None = None) -> str:
    """The document's size, its files (for a corpus), headings and samples — never its
    whole text."""
    lines = [f"`context`: {len(text):,} characters, {text.count(chr(10)) + 1:,} lines."]
    if table:
        lines.append("It joins these documents (spans into `context`):")
        for doc in table:
            pages = f", {counted(len(doc['pages']), 'page')}" if doc.get("pages") else ""
            lines.append(
                f"- {doc['name']} ({doc['format']}{pages}): {doc['start']:,}-{doc['end']:,}"
            )
    headings = _headings(text, table)
    if headings:
        shown = _evenly(headings, MAX_HEADINGS)
        more = f" ({len(shown)} of {len(headings)} shown)" if len(shown) < len(headings) else ""
        lines.append(f"Headings, each at its offset{more}:")
        lines.extend(f"- {at:,}: {title[:120]}" for at, title in shown)
    else:
        lines.append("It has no headings.")
    lines.append("Samples:")
    for at in _sample_offsets(len(text)):
        sample = " ".join(text[at : at + SAMPLE_CHARS].split())
        lines.append(f"- {at:,}: {sample!r}")
    return "\n".join(lines)


def _headings(text: str, table: list[dict[str, Any]] | None) -> list[tuple[int, str]]:
    """Each heading's offset in ``context`` and its title (``#`` marks for its level): from
    the documents' table, which holds them beside the text; from Markdown ``#`` lines when
    there is no table."""
    if table is None:
        found = [heading.to_json() for heading in markdown_headings(text)]
    else:
        found = [heading for doc in table for heading in doc.get("headings", [])]
    return [(h["start"], f"{'#' * h['level']} {h['title']}") for h in found]


def _evenly(items: list[Any], limit: int) -> list[Any]:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def _sample_offsets(size: int) -> list[int]:
    if size <= SAMPLE_CHARS:
        return [0]
    return sorted({int(size * i / SAMPLES) for i in range(SAMPLES)})


def build_lcm_system(
    definition: str,
    output_fields: list[str],
    description: str,
    tool_docs: Sequence[str],
    *,
    max_steps: int,
    max_llm_calls: int,
    max_output_chars: int,
) -> str:
    return LCM_TEMPLATE.format(
        definition=definition.strip(),
        tool=OUTPUT_TOOL_NAME,
        fields=", ".join(f"`{name}`" for name in output_fields),
        description=description,
        tools="".join(f"- {doc}\n" for doc in tool_docs),
        max_steps=max_steps,
        max_llm_calls=max_llm_calls,
        max_output_chars=max_output_chars,
    )
