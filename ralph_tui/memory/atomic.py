"""Crash-safe file writes: a whole-file replace and a whole-line append."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def _fsync_directory(directory: Path) -> None:
    """Make a rename durable; not every platform or file system allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old or the new file.

    The text goes to a temporary file in the same directory, is flushed and fsynced, and
    then renamed over ``path``; on any error the temporary file is removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            os.fchmod(handle.fileno(), mode)  # mkstemp makes 0600; keep the file's own mode
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_directory(path.parent)


def append_line(path: Path, line: str) -> None:
    """Append ``line`` plus a newline to ``path`` with one ``O_APPEND`` write, then fsync.

    If an earlier crash left the file without a final newline, a newline is written first,
    so a torn line never swallows this one.
    """
    if "\n" in line:
        raise ValueError("append_line takes a single line")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        torn = size > 0 and _last_byte(path, size) != b"\n"
        data = ("\n" if torn else "").encode() + line.encode("utf-8") + b"\n"
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def _last_byte(path: Path, size: int) -> bytes:
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1)
