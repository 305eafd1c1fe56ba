"""TaskDecomposer: a plan of at most five sub-tasks, depth at most two, with no cycles."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from ralph_tui.agents.structured import AgentSpec
from ralph_tui.roles.budgets import OUTPUT_TOKENS

MAX_SUBTASKS = 5
MAX_DEPTH = 2

SYSTEM = f"""You split a task about a document into at most {MAX_SUBTASKS} sub-tasks that
together cover it. Each sub-task has a short id, a title, a description precise enough to run
on its own, the ids it depends on, and a priority (lower runs first among ready sub-tasks).
Dependencies must form a DAG no deeper than {MAX_DEPTH} levels (a sub-task may depend on one
that depends on nothing, not deeper)."""


class SubTask(BaseModel):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,16}$")
    title: str
    description: str
    depends_on: list[str] = Field(default_factory=list)
    priority: int = 0


def dependency_depth(subtasks: list[SubTask]) -> dict[str, int]:
    """Level of each sub-task (1 = no dependencies); ``ValueError`` naming a cycle."""
    by_id = {s.id: s for s in subtasks}
    depth: dict[str, int] = {}

    def visit(task_id: str, path: tuple[str, ...]) -> int:
        if task_id in path:
            cycle = " -> ".join((*path[path.index(task_id) :], task_id))
            raise ValueError(f"the dependencies form a cycle: {cycle}")
        if task_id not in depth:
            parents = by_id[task_id].depends_on
            depth[task_id] = 1 + max((visit(p, (*path, task_id)) for p in parents), default=0)
        return depth[task_id]

    for subtask in subtasks:
        visit(subtask.id, ())
    return depth


class Plan(BaseModel):
    subtasks: list[SubTask] = Field(min_length=1)

    @model_validator(mode="after")
    def check_dag(self) -> Plan:
        ids = [s.id for s in self.subtasks]
        if len(ids) > MAX_SUBTASKS:
            raise ValueError(f"{len(ids)} sub-tasks is too many: at most {MAX_SUBTASKS}")
        if len(set(ids)) != len(ids):
            raise ValueError("sub-task ids must be unique")
        for subtask in self.subtasks:
            unknown = [d for d in subtask.depends_on if d not in ids]
            if unknown:
                raise ValueError(f"sub-task {subtask.id} depends on unknown ids {unknown}")
        deepest = max(dependency_depth(self.subtasks).values())
        if deepest > MAX_DEPTH:
            raise ValueError(f"the plan is {deepest} levels deep: at most {MAX_DEPTH}")
        return self

    def execution_order(self) -> list[SubTask]:
        """Topological order; among ready sub-tasks the lowest priority, then plan order, first."""
        done: set[str] = set()
        order: list[SubTask] = []
        pending = list(self.subtasks)
        while pending:
            ready = [s for s in pending if set(s.depends_on) <= done]
            chosen = min(ready, key=lambda s: (s.priority, pending.index(s)))
            order.append(chosen)
            done.add(chosen.id)
            pending.remove(chosen)
        return order


DECOMPOSER = AgentSpec(
    name="decomposer",
    system=SYSTEM,
    output_model=Plan,
    max_steps=4,
    max_tokens=OUTPUT_TOKENS["decomposer"],
)
