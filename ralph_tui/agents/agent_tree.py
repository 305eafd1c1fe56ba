"""Where an agent stands in a tree of agents (``--max-depth``), and what the tree shares.

Every agent of one tree takes its steps from one ``TreeSteps`` (the root's step limit is the
tree's), its sub-calls from one ``SubQueryBudget`` and waits on one concurrency limit; see
``recursion`` for how a child is started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.evidence import QuoteLocation

Locate = Callable[[list[str]], list[QuoteLocation]]

KEPT_FOR_EACH_LEVEL = 2
"""Steps of the tree an agent leaves for each level above it: a parent waiting for its
children needs a step to read their answers and one to submit its own."""
KEPT_FOR_SALVAGE = 1
"""Steps a child leaves itself for the salvage call, should its turns run out before it
submits (a salvage is a call of the exploring model, so it takes a step of the tree)."""


@dataclass
class TreeSteps:
    """The steps of a whole tree of agents: the root's limit, spent by every agent in it."""

    limit: int
    used: int = 0

    def left_for(self, depth: int) -> int:
        """Steps an agent at ``depth`` may still take (what the levels above it keep
        left out)."""
        return max(0, self.limit - self.used - KEPT_FOR_EACH_LEVEL * (depth - 1))

    def take(self, depth: int, keep: int = 0) -> bool:
        """One step for an agent at ``depth``, if one is left for it beside ``keep``."""
        if self.left_for(depth) - keep < 1:
            return False
        self.used += 1
        return True


@dataclass
class TreeShared:
    """What every agent of one tree shares: the depth allowed, the steps, the sub-call
    budget and its concurrency, the slots children run in (per level, so a parent waiting for
    its children never holds the slot they need), and where quotes are located."""

    max_depth: int
    locate: Locate | None = None
    session: Path | None = None
    """The session's folder (children's folders are named relative to it)."""
    steps: TreeSteps | None = None
    budget: SubQueryBudget | None = None
    sub_calls_at_once: asyncio.Semaphore | None = None
    slots: dict[int, asyncio.Semaphore] = field(default_factory=dict)

    def slot(self, depth: int, size: int) -> asyncio.Semaphore:
        return self.slots.setdefault(depth, asyncio.Semaphore(size))


@dataclass
class AgentTree:
    """Where one agent stands in its tree: its level (the root is 1) and where its
    children's transcripts go (``None``: not kept)."""

    shared: TreeShared
    depth: int = 1
    folder: Path | None = None

    @classmethod
    def root(
        cls,
        max_depth: int,
        *,
        folder: Path | None = None,
        session: Path | None = None,
        locate: Locate | None = None,
    ) -> AgentTree:
        """The tree of a root agent whose children's transcripts go under ``folder`` (in
        the session's folder ``session``)."""
        return cls(TreeShared(max_depth, locate, session), 1, folder)

    @property
    def deepest(self) -> bool:
        return self.depth >= self.shared.max_depth

    def child(self, folder: Path | None) -> AgentTree:
        return AgentTree(self.shared, self.depth + 1, folder)

    def budget_for(self, limit: int) -> SubQueryBudget:
        """The tree's sub-call budget (the root's, of ``limit`` calls, made on first use)."""
        if self.shared.budget is None:
            self.shared.budget = SubQueryBudget(limit=limit)
        return self.shared.budget

    def steps_for(self, limit: int) -> TreeSteps:
        """The tree's steps (the root's, ``limit`` of them, made on first use)."""
        if self.shared.steps is None:
            self.shared.steps = TreeSteps(limit)
        return self.shared.steps

    def take_step(self, *, salvage: bool = False) -> bool:
        """One of the tree's steps for this agent's next turn (a child keeps one for its
        salvage), or for its ``salvage``; always granted outside a tree that nests (its own
        step limit is then the only one)."""
        steps = self.shared.steps
        keep = KEPT_FOR_SALVAGE if self.depth > 1 and not salvage else 0
        return steps is None or steps.take(self.depth, keep)

    def child_steps(self, parent_limit: int) -> int:
        """The turns a child started now may take: its parent's limit, or what the tree
        has left for its level less its salvage's step."""
        steps = self.steps_for(parent_limit)
        return min(parent_limit, steps.left_for(self.depth + 1) - KEPT_FOR_SALVAGE)

    def join(self, runner: SubQueryRunner, max_steps: int) -> None:
        """Enter an agent of ``max_steps`` steps whose sub-calls ``runner`` makes: the root
        opens the tree's steps with its limit, and every agent's sub-calls wait on the tree's
        one concurrency limit."""
        self.steps_for(max_steps)
        if self.shared.sub_calls_at_once is None:
            self.shared.sub_calls_at_once = runner.semaphore
        runner.semaphore = self.shared.sub_calls_at_once


def nesting(tree: AgentTree | None) -> AgentTree | None:
    """``tree`` when its agents may start children (``--max-depth`` above 1), else ``None``:
    an agent is given ``rlm_query`` only then."""
    return tree if tree is not None and tree.shared.max_depth > 1 else None


def takes_step(tree: AgentTree | None) -> bool:
    """Whether an agent at ``tree`` may take its next step (the tree's steps, when it has
    any, are not spent for its level); an agent outside a tree has only its own limit."""
    return tree is None or tree.take_step()
