"""Crash-safe file writes, one set of rules for every writer: whole-file replacement and
whole-line appends.

Readers (the session browser, another process tailing a running session, ``reindex``, a
person opening a report) must never see a half-written file or a half-written line,
whatever happens to the writer.

The rules:

- A file is replaced whole: the data goes to a temp file in the same folder (so the rename
  stays on one file system), is fsynced, renamed over the target, and the folder is fsynced
  so the rename survives a power cut. On any failure the temp file is removed and the old
  file is untouched.
- A file that exists keeps its mode. A new file is ``private`` (0600) when it may quote the
  documents (session traces, caches) and otherwise follows the umask, like any file the
  user asks for (a report written with ``-o``).
- An appended line lands whole, in one ``O_APPEND`` write, so concurrent appenders never
  interleave. A ``durable`` append (memory a person keeps, one writer at a time) is fsynced,
  and if an earlier crash left the file without a final newline, a newline goes first, so a
  torn line never swallows the next. Trace events are neither: a run writes many, a crash
  loses at most the newest, and with several processes appending at once a line still being
  written would look torn.
- Folders are the caller's: nothing here creates one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

PRIVATE_MODE = 0o600
"""The mode of a new file that may quote the documents."""


def write_atomic(path: Path | str, data: str | bytes, *, private: bool = True) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) so readers see the old
    content or the new, never a mix."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    write_atomic_with(path, lambda handle: handle.write(payload), private=private)


def write_atomic_with(
    path: Path | str, write: Callable[[BinaryIO], object], *, private: bool = True
) -> None:
    """Replace ``path`` with what ``write`` writes to the binary handle it is given (for a
    writer that wants a file, like ``numpy.save``), by the same rules as ``write_atomic``."""
    target = Path(path)
    fd, temp_name = _create_aside(target, private)
    try:
        with os.fdopen(fd, "wb") as handle:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(handle.fileno(), target.stat().st_mode & 0o777)
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_folder(target.parent)


def append_line(
    path: Path | str, line: str, *, private: bool = True, durable: bool = False
) -> None:
    """Append ``line`` plus a newline to ``path`` as one ``write`` on an ``O_APPEND`` fd.

    On a local file system one ``O_APPEND`` write lands whole at the end of the file, so
    concurrent appenders (threads or processes) never interleave partial lines. ``line``
    must not contain a newline of its own."""
    if "\n" in line or "\r" in line:
        raise ValueError("append_line takes exactly one line (no embedded newline)")
    target = Path(path)
    new_mode = PRIVATE_MODE if private else 0o666  # open() applies the umask to 0o666
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, new_mode)
    try:
        size = os.fstat(fd).st_size if durable else 0
        torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        _write_all(fd, ("\n" if torn else "").encode() + line.encode("utf-8") + b"\n")
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _create_aside(target: Path, private: bool) -> tuple[int, str]:
    """A new temp file beside ``target``, made with the mode a new ``target`` gets (the
    kernel applies the umask to a non-private one, which is how the umask is followed
    without reading it)."""
    mode = PRIVATE_MODE if private else 0o666
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, flags, mode), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {target}")


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable; not every platform or file system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, payload: bytes) -> None:
    # A short write only happens in exceptional cases (disk full, signal); finish the line
    # rather than leave a fragment that would corrupt the next one.
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]
