"""An outer loop that would repeat itself: an iteration that gave again the answer it was
shown as the previous one, and failed the same checks, leaves the next to be asked what it
was. With a deterministic or near-deterministic model the next would come to the same and
spend as much again, so the loop stops there, ``failed``, saying why and what to do
(``repeated``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.loops.context import LoopResult, LoopState, RunContext
from ralph_tui.loops.iteration import IterationRecord, ended_with_best


@dataclass(frozen=True)
class Asked:
    """What an iteration is asked beside the question and the documents (the same through a
    run): its constraints, the answer it is shown as the previous one, and in task mode the
    DocReader's hints and the findings its memory holds (each once: a note written again
    tells it nothing new)."""

    constraints: tuple[str, ...]
    previous: dict[str, Any] | None = None
    hints: tuple[str, ...] = ()
    findings: frozenset[str] = frozenset()
    previous_from: int | None = field(default=None, compare=False)
    """The iteration that gave ``previous`` (for the notice; not part of what is asked)."""

    @classmethod
    def first(cls, state: LoopState, findings: frozenset[str] = frozenset()) -> Asked:
        """What the loop's first iteration is asked (a resumed run's: where it left off)."""
        return cls(
            tuple(state.constraints),
            state.previous_output,
            tuple(state.doc_reader_hints),
            findings,
            previous_from=state.next_iteration - 1 if state.previous_output else None,
        )

    def after(
        self,
        record: IterationRecord,
        constraints: list[str],
        hints: Iterable[str] = (),
        findings: frozenset[str] = frozenset(),
    ) -> Asked:
        """What the iteration after ``record`` is asked: ``record``'s answer (this one's
        when it gave none) with the constraints, hints and findings it left."""
        return Asked(
            tuple(constraints),
            record.output or self.previous,
            tuple(hints),
            findings,
            previous_from=record.iteration if record.output else self.previous_from,
        )


def stop_repeating(
    ctx: RunContext, records: list[IterationRecord], asked: Asked, then: Asked
) -> LoopResult | None:
    """The end of a loop whose last iteration (``records[-1]``, asked ``asked``) leaves
    the next to be asked ``then``, when that is what it was asked (``None``: the loop goes
    on); said in a notice and recorded as the reason the run stopped.

    It stops only when the iteration gave an answer and its checks ran to the end (a phase
    that failed may get through next time) and another iteration is allowed: ``then ==
    asked`` means the same answer shown as the previous one, under the same constraints
    (in task mode also the same hints, and nothing new in memory)."""
    record = records[-1]
    if record.output is None or record.failure_tag is not None or then != asked:
        return None
    if record.iteration >= ctx.settings.max_iters or asked.previous_from is None:
        return None
    why = repeated(record.iteration, asked.previous_from)
    ctx.notice(why)
    return ended_with_best("failed", record.iteration, records, why, otherwise=asked.previous)


def repeated(iteration: int, same_as: int) -> str:
    """The notice, and the recorded reason, of a run stopped after ``iteration``, which
    gave the answer iteration ``same_as`` gave and failed the same checks."""
    return (
        f"stopped after iteration {iteration}: it gave the same answer as iteration "
        f"{same_as} and failed the same checks, so iteration {iteration + 1} would be asked "
        f"what iteration {iteration} was and come to the same; change the question or the "
        "constraints and run again"
    )
