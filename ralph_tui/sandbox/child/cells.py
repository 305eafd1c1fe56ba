"""Running one cell the way the Python REPL would.

Globals persist in one namespace across cells; a final bare expression's value is shown
(``repr``, nothing for ``None``); top-level ``await`` works, on one event loop kept for the
child's life; errors come back as a short traceback of the cells' own lines, without the
child's internals. Each cell gets its own file name (``<cell-N>``), whose source is handed
to ``linecache`` when a traceback is formatted, so a function defined in an earlier cell
still shows its source lines. ``traceback`` and ``asyncio`` are imported only when first
needed: most children never fail a cell or await, and every child start counts. The syntax
tree's classes come from ``_ast``, the C module that ``ast`` re-exports, because ``ast``
itself loads ``enum`` and ``contextlib`` (milliseconds of every start). Building those
classes takes about a millisecond, which the first ``compile`` of any source pays, so the
child has it done (``CellRunner.prepare``) once it has told the host it is ready, while the
first cell is on its way.
"""

from __future__ import annotations

import sys

from .capture import OutputCapture, drain_fd_output
from .interrupts import Interrupts

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    import asyncio
    from types import CodeType
    from typing import Any

CELL_PREFIX = "<cell-"
CO_COROUTINE = 0x80
"""``inspect.CO_COROUTINE``, spelled out: importing ``inspect`` would slow every child start."""


class CellRunner:
    """Executes cells in one persistent namespace and reports output and errors."""

    def __init__(
        self,
        namespace: dict[str, Any],
        interrupts: Interrupts,
        *,
        output_limit: int,
        fd_output: int,
    ) -> None:
        self._namespace = namespace
        self._interrupts = interrupts
        self._output_limit = output_limit
        self._fd_output = fd_output
        self._sources: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def prepare(self) -> None:
        """Build the syntax tree's classes, which compiling a cell needs (see module docs)."""
        import _ast  # noqa: F401 - importing it builds them

    def run(self, source: str, timeout_s: float) -> dict[str, Any]:
        """Run ``source``; return the ``done`` message for the host."""
        filename = f"{CELL_PREFIX}{len(self._sources) + 1}>"
        self._sources[filename] = source
        capture = OutputCapture(self._output_limit)
        shown: str | None = None
        error: str | None = None
        self._interrupts.install()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = capture
        try:
            self._interrupts.arm(f"cell exceeded {timeout_s:g} s")
            try:
                value = self._execute(source, filename)
                shown = None if value is None else repr(value)
            finally:
                self._interrupts.disarm()
        except BaseException as exc:  # the cell's failure, whatever it is, is its result
            self._interrupts.disarm()
            error = format_cell_error(exc, self._sources)
        finally:
            sys.stdout, sys.stderr = saved
            self._interrupts.install()  # a handler the cell installed must not outlive it
        # Text written below sys.stdout comes before the value, as in a terminal.
        drain_fd_output(self._fd_output, capture)
        if shown is not None:
            capture.write(shown + "\n")
        return {
            "op": "done",
            "output": capture.text(),
            "error": error,
            "interrupted": self._interrupts.fired,
        }

    def _execute(self, source: str, filename: str) -> Any:
        """Run the cell; the value of its final bare expression, if it ends with one."""
        import _ast

        flags = _ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(source, filename, "exec", flags=_ast.PyCF_ONLY_AST | flags)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], _ast.Expr) else None
        self._evaluate(compile(tree, filename, "exec", flags=flags))
        if last is None:
            return None
        expression = _ast.Expression(last.value)
        return self._evaluate(compile(expression, filename, "eval", flags=flags))

    def _evaluate(self, code: CodeType) -> Any:
        result = eval(code, self._namespace)
        if code.co_flags & CO_COROUTINE:
            result = self._run_coroutine(result)
        return result

    def _run_coroutine(self, coroutine: Any) -> Any:
        if self._loop is None:
            import asyncio  # only cells with top-level await pay for it

            self._loop = asyncio.new_event_loop()
        try:
            return self._loop.run_until_complete(coroutine)
        except BaseException:
            # An interrupted or failed cell must not leave tasks that wake up in a later cell.
            _cancel_pending(self._loop)
            raise


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    import asyncio

    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def format_cell_error(exc: BaseException, sources: dict[str, str]) -> str:
    """The traceback of ``exc`` reduced to frames from cell code, chained exceptions included.

    ``sources`` maps each cell's file name to its code, for the source lines.
    """
    import linecache
    import traceback

    for filename, source in sources.items():
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    report = traceback.TracebackException.from_exception(exc)
    pending, seen = [report], set()
    while pending:
        part = pending.pop()
        if id(part) in seen:
            continue
        seen.add(id(part))
        part.stack = traceback.StackSummary.from_list(
            [frame for frame in part.stack if frame.filename.startswith(CELL_PREFIX)]
        )
        related = [part.__cause__, part.__context__, *(part.exceptions or [])]
        pending += [nested for nested in related if nested is not None]
    return "".join(report.format()).rstrip("\n")
