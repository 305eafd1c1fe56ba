"""A page's section tree in the PageIndex shape, built deterministically from its headings
(kept beside the text by the converter: an HTML page's ``h1``–``h6``, a Markdown page's
``#`` lines, a PDF's numbered or typeset headings), from a PDF's outline where it has one,
or from groups of pages for a PDF with neither. Each node has a ``title``, a pre-order
``node_id`` ("0001"), ``start_index``/``end_index`` (character offsets into the cached page
text; page numbers for a PDF's page groups), a ``summary`` and its child ``nodes``."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.documents.convert import markdown_headings
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
    if page.pages:
        if page.outline:
            roots = _outline_tree(page)
        elif page.headings:  # found by the converter: a filing's numbering, or typography
            roots = _on_pages(page, _heading_tree(page))
        else:
            roots = _pdf_groups(page)
    else:
        roots = _heading_tree(page)
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


def _nested(entries: list[tuple[int, str, int]], length: int, preamble: str) -> list[Node]:
    """Nodes for ``(level, title, start)`` entries in text order: each ends where the next
    entry of its level or above starts; text before the first entry is a ``preamble``
    node."""
    roots: list[Node] = []
    stack: list[Node] = []
    first = entries[0][2] if entries else length
    if first > 0 and preamble:
        roots.append(Node(preamble, 0, 0, first))
    for level, title, start in entries:
        node = Node(title, level, start, length)
        while stack and stack[-1].level >= level:
            stack.pop().end = start
        (stack[-1].nodes if stack else roots).append(node)
        stack.append(node)
    return roots


def _heading_tree(page: CachedPage) -> list[Node]:
    """The tree of the page's headings, each section starting at its heading's line; a
    page cached without headings (or built by hand) has them read from its ``#`` lines."""
    text = page.text
    found = page.headings
    if found is None:
        found = [(h.level, h.title, h.start) for h in markdown_headings(text)]
    entries = [(level, title, text.rfind("\n", 0, start) + 1) for level, title, start in found]
    first = entries[0][2] if entries else len(text)
    preamble = (page.title or "(untitled)") if text[:first].strip() else ""
    return _nested(entries, len(text), preamble)


def _page_offsets(page: CachedPage) -> list[tuple[int, int]]:
    """Each PDF page's span in the page text (pages joined by a blank line)."""
    offsets, position = [], 0
    for text in page.pages or []:
        offsets.append((position, position + len(text)))
        position += len(text) + 2
    return offsets


def _outline_tree(page: CachedPage) -> list[Node]:
    """A PDF's tree from its outline: a bookmark's section starts at its page."""
    offsets = _page_offsets(page)
    entries = sorted(
        (offsets[index][0], level + 1, title)
        for level, title, index in page.outline
        if 0 <= index < len(offsets)
    )
    nested = [(level, title, start) for start, level, title in entries]
    return _on_pages(page, _nested(nested, len(page.text), page.title or "(front matter)"))


def _on_pages(page: CachedPage, roots: list[Node]) -> list[Node]:
    """``roots`` of a PDF with each node's first and last page (its indices: page numbers)."""
    starts = [start for start, _end in _page_offsets(page)]
    for node, _path in walk(roots):
        first = bisect.bisect_right(starts, node.start)
        last = bisect.bisect_left(starts, node.end)
        node.pages = (first, max(first, last))
    return roots


def _pdf_groups(page: CachedPage) -> list[Node]:
    """A PDF without an outline or headings: a node per group of pages."""
    offsets = _page_offsets(page)
    nodes = []
    for first in range(0, len(offsets), PDF_GROUP_PAGES):
        last = min(first + PDF_GROUP_PAGES, len(offsets)) - 1
        label = f"Pages {first + 1}-{last + 1}" if last > first else f"Page {first + 1}"
        node = Node(label, 1, offsets[first][0], offsets[last][1])
        node.pages = (first + 1, last + 1)
        nodes.append(node)
    return nodes


def extractive_summary(text: str, title: str) -> str:
    """The section's first sentences (its heading aside), up to ``SUMMARY_CHARS``."""
    lines = text.splitlines()
    if lines and lines[0].strip() == title:
        lines = lines[1:]  # the heading's own line, in a text without marks
    lines = [line for line in lines if line.strip() and not HEADING.match(line)]
    flat = " ".join(" ".join(lines).split())
    if not flat:
        return title
    cut = flat[:SUMMARY_CHARS]
    stop = cut.rfind(". ")
    return cut[: stop + 1] if stop > 40 else cut + ("…" if len(flat) > SUMMARY_CHARS else "")
