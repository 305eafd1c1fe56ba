"""What a sandbox may use, and what one cell produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Isolation = Literal["bwrap", "unshare-net", "rlimits-only"]
"""How strongly the child is isolated, strongest first (see ``ralph_tui.sandbox.launch``)."""

GIB = 1 << 30
MIB = 1 << 20


class SandboxLimits(BaseModel):
    """Per-sandbox limits. Times in seconds, sizes in bytes; rlimits apply to the child."""

    model_config = ConfigDict(frozen=True)

    timeout_s: float = Field(30.0, gt=0, description="A cell's own time before SIGINT.")
    kill_grace_s: float = Field(
        2.0, gt=0, description="Time after SIGINT before the child is killed and restarted."
    )
    start_timeout_s: float = Field(
        30.0, gt=0, description="Time for a child to start and load its globals."
    )
    max_output_chars: int = Field(10_000, ge=20, description="Output beyond is cut mid-way.")
    memory_bytes: int = Field(2 * GIB, gt=0, description="RLIMIT_AS (address space).")
    cpu_seconds: int = Field(600, gt=0, description="RLIMIT_CPU over the child's whole life.")
    file_bytes: int = Field(256 * MIB, gt=0, description="RLIMIT_FSIZE, and the size of /tmp.")
    open_files: int = Field(256, ge=16, description="RLIMIT_NOFILE.")
    processes: int = Field(64, ge=1, description="RLIMIT_NPROC (threads count too).")

    def for_child(self) -> dict[str, int]:
        """The part of the limits the child applies to itself."""
        return self.model_dump(
            include={
                "max_output_chars",
                "memory_bytes",
                "cpu_seconds",
                "file_bytes",
                "open_files",
                "processes",
            }
        )


@dataclass(frozen=True)
class CellReads:
    """The spans of ``context`` a cell took (``[start, end)``, merged) and what it searched
    ``context`` for (``find``, ``in``, ``re`` patterns), as the child reported them."""

    spans: tuple[tuple[int, int], ...] = ()
    searches: tuple[str, ...] = ()

    @classmethod
    def of(cls, raw: object) -> CellReads:
        """The reads of a ``done`` message; whatever is not well formed is left out (the
        child runs the model's code and is not trusted)."""
        if not isinstance(raw, dict):
            return cls()
        spans = [
            (span[0], span[1])
            for span in raw.get("spans") or []
            if isinstance(span, list)
            and len(span) == 2
            and all(type(n) is int for n in span)
            and 0 <= span[0] < span[1]
        ]
        searches = [s for s in raw.get("searches") or [] if isinstance(s, str)]
        return cls(tuple(spans), tuple(searches))


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one cell.

    ``output`` is what the cell printed plus the value of a final bare expression, cut to
    ``max_output_chars``; ``error`` is a short traceback of the cell's own lines, or the
    description of what happened to the child. ``timed_out`` means the cell ran past its
    time; ``restarted`` means the child was replaced and its state (variables, imports,
    definitions) is lost, while the globals given at start were loaded again.
    """

    output: str
    error: str | None
    timed_out: bool
    duration_ms: float
    restarted: bool = False
    reads: CellReads = field(default_factory=CellReads)
    """What the cell read of ``context``: the slices it took, the searches it made."""
