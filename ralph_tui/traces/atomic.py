"""Crash-safe file writes: whole-file replacement and whole-line appends.

Readers of the trace files (the session browser, another process tailing a
running session, ``reindex``) must never see a half-written file or a
half-written line, whatever happens to the writer.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old content or the new, never a mix.

    The data goes to a temp file in the same directory (so the rename stays on
    one file system), is fsynced, then renamed over ``path``. If anything fails
    the temp file is removed and the old file is left untouched.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        try:
            _write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def append_line(path: Path | str, line: str) -> None:
    """Append ``line`` plus a newline to ``path`` as one ``write`` on an ``O_APPEND`` fd.

    On a local file system, one ``O_APPEND`` write lands whole at the end of the
    file, so concurrent appenders (threads or processes) never interleave
    partial lines. ``line`` must not contain a newline of its own. Like the
    files ``write_atomic`` creates, a new file is private to the user (0600):
    traces quote the documents they were run on.
    """
    if "\n" in line or "\r" in line:
        raise ValueError("append_line takes exactly one line (no embedded newline)")
    payload = (line + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, payload)
    finally:
        os.close(fd)


def _write_all(fd: int, payload: bytes) -> None:
    # A short write only happens in exceptional cases (disk full, signal); finish
    # the line rather than leave a fragment that would corrupt the next one.
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]
