"""Sandbox layer: an isolated, persistent Python child that runs the model's code.

``Sandbox.start(globals=..., functions=..., limits=...)`` then ``await execute(code)`` for
each cell and ``await close()`` (or ``async with``). See ``host`` for running cells,
``state`` for the lifecycle, ``launch`` for isolation, ``child`` for the code that runs inside.
"""

from ralph_tui.sandbox.calls import HostFunction
from ralph_tui.sandbox.host import Sandbox, SandboxStartError
from ralph_tui.sandbox.limits import CellReads, ExecResult, Isolation, SandboxLimits

__all__ = [
    "CellReads",
    "ExecResult",
    "HostFunction",
    "Isolation",
    "Sandbox",
    "SandboxLimits",
    "SandboxStartError",
]
