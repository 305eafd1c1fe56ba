"""The documents written whole into a prompt (the ``direct`` inner mode), and read back.

The block opens the system prompt, before anything that changes: the same bytes at every
step and iteration of a run, so a provider's prompt cache serves them after the first
request. Each document is framed with its length in characters, so reading the block back
(the offline baseline does) takes exactly each document's text, whatever it contains —
even something that looks like the frame itself."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

OPENING = "<documents>\n"
CLOSING = "</documents>\n"
_HEADER = re.compile(r'<document index="(\d+)" chars="(\d+)" source="([^"\n]*)">\n')


@dataclass(frozen=True)
class PromptDocument:
    """One document of the block: its name and its whole text."""

    source: str
    text: str


def _attribute(value: str) -> str:
    """``value`` as it can stand between the header's double quotes."""
    return " ".join(value.replace('"', "'").split())


def render_documents(documents: Sequence[PromptDocument]) -> str:
    """The block: each document under a header with its index, length and source."""
    parts = [OPENING]
    for index, doc in enumerate(documents, 1):
        source = _attribute(doc.source)
        parts.append(f'<document index="{index}" chars="{len(doc.text)}" source="{source}">\n')
        parts.append(f"{doc.text}\n</document>\n")
    parts.append(CLOSING)
    return "".join(parts)


def parse_documents(prompt: str) -> list[PromptDocument] | None:
    """The documents of a prompt that opens with the block (``None`` when it does not, or
    when the block is not whole)."""
    if not prompt.startswith(OPENING):
        return None
    found: list[PromptDocument] = []
    at = len(OPENING)
    while not prompt.startswith(CLOSING, at):
        header = _HEADER.match(prompt, at)
        if header is None:
            return None
        start = header.end()
        end = start + int(header[2])
        if not prompt.startswith("\n</document>\n", end):
            return None
        found.append(PromptDocument(header[3], prompt[start:end]))
        at = end + len("\n</document>\n")
    return found
