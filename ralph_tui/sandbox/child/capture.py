"""Bounded capture of what a cell prints.

A cell may print gigabytes; the model can read only ``limit`` characters. The capture keeps
the whole text while it fits, otherwise only the head and the tail, and counts the rest, so
memory stays bounded and the report of what was cut is exact.
"""

from __future__ import annotations

import _thread
import codecs
import io
import posix  # ``os`` without the modules it loads (see ``main``)

READ_CHUNK = 1 << 20
SEEK_SET = 0  # ``os.SEEK_SET``; ``posix`` does not name it


def omission_marker(count: int) -> str:
    return f"\n[... {count} characters omitted ...]\n"


class OutputCapture(io.TextIOBase):
    """A write-only text stream that keeps at most ``limit`` characters, cut as head + tail."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit
        self._half = max(limit // 2, 1)
        self._head: list[str] = []
        self._head_chars = 0
        self._tail: list[str] = []
        self._tail_chars = 0
        self._total = 0
        self._lock = _thread.allocate_lock()

    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            self._total += len(text)
            room = self._limit - self._head_chars
            if room > 0:
                self._head.append(text[:room])
                self._head_chars += min(room, len(text))
            piece = text[-self._half :]
            self._tail.append(piece)
            self._tail_chars += len(piece)
            if self._tail_chars > 4 * self._half:
                kept = "".join(self._tail)[-self._half :]
                self._tail = [kept]
                self._tail_chars = len(kept)
        return len(text)

    def text(self) -> str:
        """Everything written if it fits in ``limit``, else head + omission marker + tail."""
        with self._lock:
            head = "".join(self._head)
            if self._total <= self._limit:
                return head
            tail = "".join(self._tail)[-self._half :]
            omitted = self._total - 2 * self._half
            return head[: self._half] + omission_marker(omitted) + tail


def drain_fd_output(fd: int, capture: OutputCapture) -> None:
    """Move what was written to the file behind ``fd`` (fds 1 and 2) into ``capture``; empty it.

    Output written below Python's ``sys.stdout`` (``os.write(1, ...)``, C extensions) lands in
    this file; it is streamed in chunks so a large file never sits in memory whole.
    """
    if posix.fstat(fd).st_size == 0:
        return
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    posix.lseek(fd, 0, SEEK_SET)
    while chunk := posix.read(fd, READ_CHUNK):
        capture.write(decoder.decode(chunk))
    capture.write(decoder.decode(b"", final=True))
    posix.ftruncate(fd, 0)
    posix.lseek(fd, 0, SEEK_SET)
