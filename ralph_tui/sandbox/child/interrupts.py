"""When the host's SIGINT may interrupt the child, and when it must wait.

The host sends SIGINT when a cell runs past its time. It must stop user code, but never the
child's own protocol work: a frame half-written or a chunk read and not yet decoded would
desynchronise the channel. So the handler raises only while user code is running ("armed")
and no channel operation is in progress on the main thread ("deferred"); otherwise the
interrupt is held and raised as soon as the channel operation ends. Outside a cell it is
dropped, so a late signal cannot hit the next cell.
"""

from __future__ import annotations

import _thread

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    import signal as _signal
    from types import FrameType, TracebackType
else:
    # The C module that ``signal`` wraps: ``signal`` itself loads ``enum`` (milliseconds of
    # every child start) to name the constants.
    import _signal


class Interrupts:
    """The child's SIGINT policy; ``install`` once, then ``arm``/``disarm`` around each cell."""

    def __init__(self) -> None:
        self._main_thread = _thread.get_ident()  # made by the main thread
        self._armed = False
        self._deferred = 0
        self._pending = False
        self._message = ""
        self.fired = False

    def install(self) -> None:
        """(Re)install the handler; user code may have replaced it during the last cell."""
        if _signal.getsignal(_signal.SIGINT) != self._on_sigint:
            _signal.signal(_signal.SIGINT, self._on_sigint)

    def arm(self, message: str) -> None:
        self._message = message
        self._pending = False
        self.fired = False
        self._armed = True

    def disarm(self) -> None:
        self._armed = False
        self._pending = False

    def deferred(self) -> _Deferral:
        """A context in which SIGINT waits; it is raised, if armed, when the context ends."""
        return _Deferral(self)

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        if self._armed and not self._deferred:
            self._raise()
        self._pending = self._armed

    def _raise(self) -> None:
        self._pending = False
        self.fired = True
        raise KeyboardInterrupt(self._message)


class _Deferral:
    """Holds SIGINT back for the main thread; other threads never receive signals anyway."""

    def __init__(self, interrupts: Interrupts) -> None:
        self._interrupts = interrupts
        self._counted = False

    def __enter__(self) -> None:
        interrupts = self._interrupts
        self._counted = _thread.get_ident() == interrupts._main_thread
        if self._counted:
            interrupts._deferred += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        interrupts = self._interrupts
        if not self._counted:
            return
        interrupts._deferred -= 1
        if not interrupts._deferred and interrupts._pending and interrupts._armed:
            interrupts._raise()
