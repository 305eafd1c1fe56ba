"""A page's section tree in the PageIndex shape, built deterministically from its headings
(Markdown ``#`` lines: HTML pages are converted with their ``h1``–``h6`` as such), or from
groups of pages for a PDF. Each node has a ``title``, a pre-order ``node_id`` ("0001"),
``start_index``/``end_index`` (character offsets into the cached page text; page numbers
for a PDF's page groups), a ``summary`` and its child ``nodes``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.external.cache import CachedPage

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
PDF_GROUP_PAGES = 5
SUMMARY_CHARS = 200


@dataclass
class Node:
    title: str
    level: int
    start: int
    end: int
    node_id: str = ""
    summary: str = ""
    nodes: list[Node] = field(default_factory=list)
    pages: tuple[int, int] | None = None
    """First and last page of a PDF's page group."""

    @property
    def own_end(self) -> int:
        """Where the node's own text ends: at its first child, or its end."""
        return self.nodes[0].start if self.nodes else self.end

    def to_json(self) -> dict[str, Any]:
        start, end = self.pages if self.pages else (self.start, self.end)
        return {
            "title": self.title,
            "node_id": self.node_id,
            "start_index": start,
            "end_index": end,
            "summary": self.summary,
            "nodes": [child.to_json() for child in self.nodes],
        }


def page_tree(page: CachedPage) -> list[Node]:
    """The top-level nodes of ``page``'s tree, numbered in pre-order and summarised."""
    roots = _pdf_groups(page) if page.pages else _heading_tree(page.text, page.title)
    for number, (node, _path) in enumerate(walk(roots), 1):
        node.node_id = f"{number:04d}"
        node.summary = extractive_summary(page.text[node.start : node.own_end], node.title)
    return roots


def walk(nodes: list[Node], path: tuple[str, ...] = ()) -> Any:
    """Every node in pre-order with its path of titles (its own last)."""
    for node in nodes:
        here = (*path, node.title)
        yield node, here
        yield from walk(node.nodes, here)


def _heading_tree(text: str, title: str) -> list[Node]:
    roots: list[Node] = []
    stack: list[Node] = []
    first = HEADING.search(text)
    if first is None or text[: first.start()].strip():
        end = first.start() if first is not None else len(text)
        roots.append(Node(title or "(untitled)", 0, 0, end))
    for match in HEADING.finditer(text):
        level = len(match.group(1))
        node = Node(match.group(2).strip(), level, match.start(), len(text))
        while stack and stack[-1].level >= level:
            stack.pop().end = match.start()
        (stack[-1].nodes if stack else roots).append(node)
        stack.append(node)
    return roots


def _pdf_groups(page: CachedPage) -> list[Node]:
    """A PDF without headings: a node per group of pages (the separator between pages is
    a blank line, as the documents layer joins them)."""
    pages = page.pages or []
    offsets, position = [], 0
    for text in pages:
        offsets.append((position, position + len(text)))
        position += len(text) + 2
    nodes = []
    for first in range(0, len(pages), PDF_GROUP_PAGES):
        last = min(first + PDF_GROUP_PAGES, len(pages)) - 1
        label = f"Pages {first + 1}-{last + 1}" if last > first else f"Page {first + 1}"
        node = Node(label, 1, offsets[first][0], offsets[last][1])
        node.pages = (first + 1, last + 1)
        nodes.append(node)
    return nodes


def extractive_summary(text: str, title: str) -> str:
    """The section's first sentences (its heading aside), up to ``SUMMARY_CHARS``."""
    lines = [line for line in text.splitlines() if line.strip() and not HEADING.match(line)]
    flat = " ".join(" ".join(lines).split())
    if not flat:
        return title
    cut = flat[:SUMMARY_CHARS]
    stop = cut.rfind(". ")
    return cut[: stop + 1] if stop > 40 else cut + ("…" if len(flat) > SUMMARY_CHARS else "")
