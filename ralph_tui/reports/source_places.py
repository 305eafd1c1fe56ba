"""Where ``verify`` may read a bundle's source files from.

A bundle may come from someone else, so the paths it saves are hints, not orders: a file is
read from where ``--doc`` puts it; else from its saved path when that path, resolved (links
followed, ``..`` taken), is inside the bundle's folder or the working folder, and not hidden
below it (``.ssh/config``, ``.env``); else found by its name in one of those two folders, on
the same terms. A saved path anywhere else is read only when the user says so
(``--trust-paths``). Whatever the way, a file that is not a regular one (``/proc``,
``/dev``, ``/sys``, a FIFO, a socket, a device) is never opened: it is checked on its real
path and with ``stat``, before any ``open`` (which would wait for ever on a FIFO).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal

from ralph_tui.documents.confine import read_file

SPECIAL_TREES = (Path("/proc"), Path("/dev"), Path("/sys"))
"""Trees of files that are the system's state, not documents (their files look regular)."""

Found = Literal["bundle", "bundle_same_bytes", "beside_bundle", "working_folder"]


class NotADocumentFile(Exception):
    """A path that names no regular file: a special one, or a file in ``SPECIAL_TREES``."""


def check_regular_file(path: Path) -> Path:
    """``path``'s real path, when it is a regular file outside ``SPECIAL_TREES``;
    ``NotADocumentFile`` (saying what it is) otherwise, ``FileNotFoundError`` when nothing is
    there. Nothing is opened."""
    real = Path(os.path.realpath(path))
    if any(real == tree or real.is_relative_to(tree) for tree in SPECIAL_TREES):
        raise NotADocumentFile(f"{path} is a system file (under {real.parts[1]}), never read")
    mode = real.stat().st_mode
    if not stat.S_ISREG(mode):
        raise NotADocumentFile(f"{path} is {_kind(mode)}, not a regular file: never read")
    return real


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


@dataclass(frozen=True)
class SourcePlaces:
    """The folders a bundle's files may be read from without ``--trust-paths``: the
    bundle's own and the working folder, as real paths."""

    bundle_folder: Path
    working_folder: Path
    trust_paths: bool = False
    """Read a saved path wherever it points (the user vouches for the bundle)."""

    @classmethod
    def of(cls, bundle: Path, *, trust_paths: bool = False) -> SourcePlaces:
        return cls(
            Path(os.path.realpath(bundle.parent)),
            Path(os.path.realpath(Path.cwd())),
            trust_paths,
        )

    def inside(self, real: Path) -> bool:
        """Whether ``real`` is in one of the folders, and not hidden there."""
        return any(_visibly_in(real, folder) for folder in self.folders)

    @property
    def folders(self) -> tuple[Path, Path]:
        return self.bundle_folder, self.working_folder

    def find(
        self, name: str, saved: str | None, sha256: str | None = None, max_bytes: int = 0
    ) -> tuple[Path, Found] | str:
        """The file of the source ``name`` saved at ``saved``, and how it was found; else why
        none is read (one clause). A saved path outside the folders is read when its bytes
        (at most ``max_bytes``) are the ones the bundle saved (``sha256``): whoever wrote the
        bundle knew them already, so reading them tells nothing, and one's own bundle checks
        documents that stayed where they were, wherever that is."""
        refused = ""
        if saved:
            path = Path(saved) if Path(saved).is_absolute() else self.bundle_folder / saved
            try:
                real = check_regular_file(path)
            except FileNotFoundError:
                pass
            except (NotADocumentFile, OSError) as exc:
                refused = str(exc)
            else:
                if self.trust_paths or self.inside(real):
                    return real, "bundle"
                if sha256 and _holds_bytes(real, sha256, max_bytes):
                    return real, "bundle_same_bytes"
                refused = (
                    f"its saved path {saved} is outside the bundle's folder and the working "
                    "folder, or hidden in them, and its bytes are not the bundle's: not read "
                    "(a bundle's paths are hints; --trust-paths reads them)"
                )
        by_name: tuple[tuple[Path, Found], ...] = (
            (self.bundle_folder, "beside_bundle"),
            (self.working_folder, "working_folder"),
        )
        for folder, how in by_name:
            for candidate in _names(name, saved):
                there = self._in(folder, candidate)
                if there is not None:
                    return there, how
        if refused:
            return refused
        return f"not at {saved}" if saved else "the bundle saves no path for it"

    def _in(self, folder: Path, name: str) -> Path | None:
        """``folder / name``'s real path, when it is a regular file inside ``folder``."""
        try:
            real = check_regular_file(folder / name)
        except (NotADocumentFile, OSError):
            return None
        return real if _visibly_in(real, folder) else None


def _holds_bytes(real: Path, sha256: str, max_bytes: int) -> bool:
    """Whether the regular file ``real`` (at most ``max_bytes``) has the SHA-256 ``sha256``."""
    try:
        if real.stat().st_size > max_bytes:
            return False
        return hashlib.sha256(read_file(real, max_bytes)).hexdigest() == sha256.lower()
    except OSError:
        return False


def _visibly_in(real: Path, folder: Path) -> bool:
    """Whether ``real`` is in ``folder``, no part of it below ``folder`` hidden (``.ssh``,
    ``.env``): the working folder is often one's home, whose dot files hold keys."""
    if not real.is_relative_to(folder):
        return False
    return not any(part.startswith(".") for part in real.relative_to(folder).parts)


def _names(name: str, saved: str | None) -> list[str]:
    """The names a source's file may have beside the bundle: its name in the run (``a.md``,
    ``docs/a.md``), that name's last part, its saved path's last part."""
    names = [name, PurePath(name).name]
    if saved:
        names.append(PurePath(saved).name)
    relative = [n for n in names if n and not PurePath(n).is_absolute()]
    return list(dict.fromkeys(relative))
