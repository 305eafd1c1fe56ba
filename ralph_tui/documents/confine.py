"""The folders every file of a run must lie in when its paths come from someone not trusted
(an MCP server's client), and how such a file is opened.

Each path is resolved (symbolic links followed) before it is checked, the file opened is the
resolved one (a link put in its place since is not followed), and on Linux the file actually
opened is checked again, so a folder swapped for a link between the check and the open
cannot lead out either.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
"""Non-blocking, so that opening a FIFO to find out it is one does not wait for a writer."""
OPEN_FLAGS_CONFINED = OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
PROC_FD = Path("/proc/self/fd")


class OutsideError(OSError):
    """A path that leads outside the allowed folders (or is no longer the file checked)."""


@dataclass(frozen=True)
class Confinement:
    """The folders (real paths) a run may read files from."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, folders: Iterable[str | os.PathLike[str]]) -> Confinement:
        resolved = (Path(os.path.realpath(Path(folder).expanduser())) for folder in folders)
        return cls(tuple(dict.fromkeys(resolved)))

    def admits(self, real: Path) -> bool:
        """Whether the real path ``real`` lies in one of the folders."""
        return any(real.is_relative_to(folder) for folder in self.folders)

    def on_the_way(self, real: Path) -> bool:
        """Whether the real folder ``real`` lies in one of the folders or holds one."""
        return self.admits(real) or any(folder.is_relative_to(real) for folder in self.folders)

    def real_inside(self, path: Path) -> Path | None:
        """``path`` resolved when it exists and lies inside, else ``None``."""
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        return real if self.admits(real) else None

    def describe(self) -> str:
        """The folders, as a message names them."""
        return ", ".join(str(folder) for folder in self.folders)

    def outside_note(self, name: str) -> str:
        """Why ``name`` was not read, in one line."""
        return f"{name} leads outside the folders this server may read ({self.describe()})"


def read_file(path: Path, max_bytes: int | None = None, within: Confinement | None = None) -> bytes:
    """The bytes of the file at ``path``: at most ``max_bytes`` (``OSError`` ``EFBIG``
    beyond). With ``within``, ``path`` is a real path it admitted: a symbolic link found in
    its place is not followed, and anything but a regular file, or a file that turns out to lie
    outside, is refused with ``OutsideError``."""
    with _opened(path, within) as (handle, size):
        if max_bytes is not None and size > max_bytes:
            raise OSError(errno.EFBIG, f"{size} bytes")
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"more than {max_bytes} bytes")
    return data


def read_head(path: Path, count: int, within: Confinement | None = None) -> bytes:
    """The first ``count`` bytes of the file at ``path``, opened as ``read_file`` opens it."""
    with _opened(path, within) as (handle, _size):
        return handle.read(count)


@contextlib.contextmanager
def _opened(path: Path, within: Confinement | None) -> Iterator[tuple[BinaryIO, int]]:
    """The file open for reading, with its size (0 for anything but a regular file)."""
    fd = os.open(path, OPEN_FLAGS_CONFINED if within else OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if within is not None:
            _check_opened(fd, info, within)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            yield handle, info.st_size if stat.S_ISREG(info.st_mode) else 0
    finally:
        os.close(fd)


def _check_opened(fd: int, info: os.stat_result, within: Confinement) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise OutsideError("not a regular file")
    try:
        opened = Path(os.readlink(PROC_FD / str(fd)))
    except OSError:
        return  # no /proc: the resolved path opened without following a link is the check
    if not within.admits(opened):
        raise OutsideError(f"the file opened is {opened}")
