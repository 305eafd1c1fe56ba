"""What the cells read of the document: the slices they take of ``context`` and the
searches they make over it, reported to the host with each cell's result.

``context`` becomes a ``TrackedText``: a ``str`` in every way, whose slicing notes the span
taken (taking a slice counts as reading it: it is how code shows the text, or sends it to a
sub-model) and whose ``find``, ``index``, ``count`` and ``in`` note what was searched for.
Printing ``context`` whole notes what the cut output shows of it: its head and its tail.
The module-level functions of ``re`` (``re.search(pattern, context)`` and the like) are
wrapped as ``re`` is imported (the child itself never loads it: ``re`` and the ``enum`` it
needs cost milliseconds of every start), to note their patterns. Everything else on ``context``
(``len``, iteration, ``split``, ...) runs at ``str`` speed, untouched.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from typing import Any

TRACKED_GLOBAL = "context"
"""The global holding the document the host explores (see ``agents.agent_run.document_of``)."""
MERGE_AT = 4096
"""Spans noted before they are merged, so a cell slicing in a loop keeps memory bounded."""
MAX_SEARCHES = 200
"""Distinct searches kept per cell."""
RE_FUNCTIONS = ("search", "match", "fullmatch", "findall", "finditer", "split", "sub", "subn")
STRING_ARGUMENT = {"sub": 2, "subn": 2}
"""Where ``string`` stands among a ``re`` function's positional arguments (else second)."""


class Reads:
    """The spans and searches noted since the last ``take``."""

    def __init__(self, shown_chars: int) -> None:
        self.shown_chars = shown_chars
        self.spans: list[tuple[int, int]] = []
        self.searches: dict[str, None] = {}

    def span(self, start: int, end: int) -> None:
        if end > start:
            self.spans.append((start, end))
            if len(self.spans) >= MERGE_AT:
                self.spans = merged(self.spans)

    def search(self, what: object) -> None:
        pattern = getattr(what, "pattern", what)  # a compiled pattern's source
        if isinstance(pattern, bytes):
            pattern = pattern.decode("utf-8", "replace")
        if isinstance(pattern, str) and len(self.searches) < MAX_SEARCHES:
            self.searches[str(pattern)] = None

    def shown_whole(self, size: int) -> None:
        """``context`` printed whole: the cut output shows its head and its tail."""
        half = self.shown_chars // 2
        self.span(0, min(size, half))
        self.span(max(0, size - half), size)

    def take(self) -> dict[str, Any]:
        """The cell's reads, for its ``done`` message; the record starts afresh."""
        taken = {"spans": [list(span) for span in merged(self.spans)], "searches": [*self.searches]}
        self.spans, self.searches = [], {}
        return taken


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping and touching ones joined."""
    result: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if result and start <= result[-1][1]:
            if end > result[-1][1]:
                result[-1] = (result[-1][0], end)
        else:
            result.append((start, end))
    return result


RECORD: Reads | None = None
"""The child's one record (the class below reads it; a ``str`` subclass cannot carry it)."""


class TrackedText(str):
    """``context``: a ``str`` that notes the slices taken of it and the searches over it."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> str:
        piece = str.__getitem__(self, key)
        if type(key) is slice and RECORD is not None:
            start, stop, step = key.indices(len(self))
            if step == 1:  # the common case, kept short: a loop may slice many times
                if stop > start:
                    spans = RECORD.spans
                    spans.append((start, stop))
                    if len(spans) >= MERGE_AT:
                        RECORD.spans = merged(spans)
            elif piece:  # from the first character taken to the last
                last = start + (len(piece) - 1) * step
                RECORD.span(min(start, last), max(start, last) + 1)
        return piece

    def find(self, sub: Any, *args: Any) -> int:
        _searched(sub)
        return str.find(self, sub, *args)

    def rfind(self, sub: Any, *args: Any) -> int:
        _searched(sub)
        return str.rfind(self, sub, *args)

    def index(self, sub: Any, *args: Any) -> int:
        _searched(sub)
        return str.index(self, sub, *args)

    def rindex(self, sub: Any, *args: Any) -> int:
        _searched(sub)
        return str.rindex(self, sub, *args)

    def count(self, sub: Any, *args: Any) -> int:
        _searched(sub)
        return str.count(self, sub, *args)

    def __contains__(self, sub: object) -> bool:
        _searched(sub)
        return str.__contains__(self, sub)  # type: ignore[operator]

    def __str__(self) -> str:
        _shown(self)
        return str.__str__(self)

    def __repr__(self) -> str:
        _shown(self)
        return str.__repr__(self)

    def __format__(self, spec: str) -> str:
        _shown(self)
        return str.__format__(self, spec)


def _searched(what: object) -> None:
    if RECORD is not None:
        RECORD.search(what)


def _shown(text: str) -> None:
    if RECORD is not None:
        RECORD.shown_whole(len(text))


def wrap_re(module: Any, reads: Reads) -> None:
    """Wrap ``module``'s functions that take a string, to note a pattern used on ``context``."""
    for name in RE_FUNCTIONS:
        function = getattr(module, name)
        position = STRING_ARGUMENT.get(name, 1)
        setattr(module, name, _noting(function, position, reads))


def _noting(function: Any, position: int, reads: Reads) -> Any:
    def noted(pattern: Any, *args: Any, **kwargs: Any) -> Any:
        string = args[position - 1] if len(args) >= position else kwargs.get("string")
        if isinstance(string, TrackedText):
            reads.search(pattern)
        return function(pattern, *args, **kwargs)

    noted.__name__, noted.__qualname__, noted.__doc__ = (
        function.__name__,
        function.__qualname__,
        function.__doc__,
    )
    noted.__wrapped__ = function  # type: ignore[attr-defined]
    return noted


class _WrapReOnImport:
    """An import finder that lets the other finders find ``re`` and has its module wrapped
    (``wrap_re``) as soon as it is loaded; then it leaves ``sys.meta_path``."""

    def __init__(self, reads: Reads) -> None:
        self._reads = reads

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "re":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        load = spec.loader.exec_module
        reads = self._reads

        def exec_module(module: Any) -> None:
            load(module)
            wrap_re(module, reads)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def track_reads(namespace: dict[str, Any], shown_chars: int) -> Reads:
    """Make the namespace's ``context`` (a ``str``) a ``TrackedText``; the record of its reads.

    ``shown_chars`` is what a cell's output shows at most (the rest is cut from its middle).
    """
    global RECORD
    RECORD = Reads(shown_chars)
    if "re" in sys.modules:
        wrap_re(sys.modules["re"], RECORD)
    else:
        sys.meta_path.insert(0, _WrapReOnImport(RECORD))
    value = namespace.get(TRACKED_GLOBAL)
    if type(value) is str:
        namespace[TRACKED_GLOBAL] = TrackedText(value)
    return RECORD
