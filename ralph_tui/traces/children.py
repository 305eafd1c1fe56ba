"""The transcripts of child agents (``rlm_query``), kept under the step that started them.

Beside a session's other files, and only when an agent started children::

    children/<NN>-<agent>/      the children of iteration NN's exploring agent (``01-worker``)
        <step>.<n>/             the n-th child the agent's step <step> started (``3.1``)
            child.json          what it was asked, over what, how it ended (``ChildRecord``)
            context.jsonl       its whole conversation (the LCM store, as the root's
                                ``context-NN-<agent>.jsonl``)
            <step>.<n>/ ...     its own children, the same way

``child.json`` is written when the child starts (``status: running``) and replaced when it
ends. ``read_children`` gives the whole tree of a session folder, which may come from
someone else: what it reads is bounded and a malformed record is shown as such.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from ralph_tui.atomic import write_atomic
from ralph_tui.events import ChildStatus, Said
from ralph_tui.evidence import QuoteLocation
from ralph_tui.json_input import JsonRefused, read_json

CHILDREN_FOLDER = "children"
CHILD_RECORD = "child.json"
CHILD_CONTEXT = "context.jsonl"
ROOT_NAME = re.compile(r"(\d{2,})-([\w.-]+)")
CHILD_NAME = re.compile(r"(\d+)\.(\d+)")
MAX_CHILDREN_READ = 2000
"""Child records one reading of a session folder goes through at most."""
MAX_DEPTH_READ = 8
"""Levels below a root one reading goes down at most (``--max-depth`` allows 3)."""
CHILD_RECORD_MAX_BYTES = 8 << 20


class ChildRecord(BaseModel):
    """One child agent: ``child.json`` in its folder. Written in camelCase, read in either."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    agent: str
    """Its agent name: its parent's with ``/<step>.<n>`` added (``worker/3.1``)."""
    parent: str
    step: int
    """The parent's step whose code started it."""
    depth: int
    prompt: str
    context: str
    """What it explored, for a person (``2 documents: a.md, b.md``)."""
    status: Literal["running"] | ChildStatus = "running"
    answer: str = ""
    output: dict[str, Any] | None = None
    quotes: list[QuoteLocation] = Field(default_factory=list)
    """Where each quote of its output stands in the run's documents."""
    error: Said | None = None
    steps: int = 0
    started_at: float = 0.0
    duration_ms: float | None = None


class ChildNode(BaseModel):
    """A child in the tree: its record (``None`` with ``problem`` when it could not be
    read), its folder relative to the session's, and its own children."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    name: str
    folder: str
    record: ChildRecord | None = None
    problem: str | None = None
    children: list[ChildNode] = Field(default_factory=list)


class ChildTree(BaseModel):
    """The children one exploring agent of one iteration started."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    iteration: int
    agent: str
    children: list[ChildNode] = Field(default_factory=list)
    truncated: bool = False
    """More children were kept than one reading goes through (``MAX_CHILDREN_READ``)."""


def write_child(folder: Path, record: ChildRecord) -> None:
    """Write (or replace) the child's record in its folder, which is made if need be."""
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / CHILD_RECORD, record.model_dump_json(by_alias=True, indent=2))


def read_children(session: Path) -> list[ChildTree]:
    """Every child agent the session's agents started, as one tree per agent and iteration,
    in order (empty for a session without children)."""
    top = session / CHILDREN_FOLDER
    if not top.is_dir() or top.is_symlink():
        return []
    budget = [MAX_CHILDREN_READ]
    trees = []
    for folder in sorted(top.iterdir(), key=lambda p: p.name):
        match = ROOT_NAME.fullmatch(folder.name)
        if match is None or not folder.is_dir() or folder.is_symlink():
            continue
        children = _children_of(folder, session, budget, 1)
        trees.append(
            ChildTree(
                iteration=int(match[1]),
                agent=match[2],
                children=children,
                truncated=budget[0] < 0,
            )
        )
    return trees


def _children_of(folder: Path, session: Path, budget: list[int], level: int) -> list[ChildNode]:
    if level > MAX_DEPTH_READ:
        return []
    found = []
    for entry in folder.iterdir():
        match = CHILD_NAME.fullmatch(entry.name)
        if match is not None and entry.is_dir() and not entry.is_symlink():
            found.append(((int(match[1]), int(match[2])), entry))
    nodes = []
    for _, entry in sorted(found):
        budget[0] -= 1
        if budget[0] < 0:
            break
        node = _node(entry, session)
        node.children = _children_of(entry, session, budget, level + 1)
        nodes.append(node)
    return nodes


def _node(folder: Path, session: Path) -> ChildNode:
    node = ChildNode(name=folder.name, folder=str(folder.relative_to(session)))
    where = f"{node.folder}/{CHILD_RECORD}"
    try:
        data = read_json(folder / CHILD_RECORD, where, max_bytes=CHILD_RECORD_MAX_BYTES)
        node.record = ChildRecord.model_validate(data)
    except FileNotFoundError:
        node.problem = f"{where}: missing"
    except (OSError, JsonRefused) as exc:
        node.problem = str(exc)
    except ValidationError as exc:
        node.problem = f"{where}: not a child record ({exc.error_count()} problems)"
    return node
