"""The sandbox's private host directory (the globals it loads and the files its cells write),
and the manifest that tells the child what to load.

Each scratch directory holds an ``owner.lock`` that its sandbox keeps locked (``flock``)
while it lives. The kernel drops the lock when the owning process dies, however it dies,
so a later sandbox recognises directories left behind by a killed host (a document can
be hundreds of megabytes) and deletes them (``remove_abandoned``, which the sandbox runs
while its child starts).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.sandbox.child.framing import encode_frame
from ralph_tui.sandbox.limits import SandboxLimits

PREFIX = "ralph-sandbox-"
LOCK_FILE = "owner.lock"
WRITE_CHUNK_CHARS = 1 << 20


@dataclass(frozen=True)
class Scratch:
    """One scratch directory and the descriptor holding its owner lock.

    ``init`` holds the text globals' files (read-only for the child), ``work``
    is the child's working directory (writable), ``tmp`` its temp dir when not under bwrap
    (made only then).
    """

    root: Path
    lock_fd: int

    @property
    def init(self) -> Path:
        return self.root / "init"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"


def create_scratch() -> Scratch:
    """A new, locked scratch directory, with its ``init`` and ``work`` folders."""
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    lock_fd = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    scratch = Scratch(root, lock_fd)
    for folder in (scratch.init, scratch.work):
        folder.mkdir()
    return scratch


def remove_scratch(root: str, lock_fd: int) -> None:
    """Delete a scratch directory, then release its lock."""
    remove_tree(root)
    os.close(lock_fd)


def remove_abandoned() -> None:
    """Delete this user's scratch directories whose owner lock nobody holds any more."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            # The temp dir is shared: never act on another user's entries or on links.
            if folder.is_symlink() or folder.stat().st_uid != os.getuid():
                continue
            fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue  # gone meanwhile, not locked yet by its creator, or not one of ours
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # its sandbox is alive
        finally:
            os.close(fd)
        remove_tree(str(folder))


def remove_tree(root: str) -> None:
    """Delete a tree, including directories the child made unwritable.

    Symlinks are never followed: the child may have pointed them anywhere.
    """
    for folder, subfolders, _ in os.walk(root):
        for name in subfolders:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o700)
    if os.path.isdir(root) and not os.path.islink(root):
        os.chmod(root, 0o700)
    shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class Manifest:
    """What the child loads at start: globals, host function names, limits.

    ``frame`` is the ``load`` message the host sends the child first, on its channel (encoded
    once: a restarted child gets the same). Strings (the document) are not in it: each goes
    to a file of its own in ``init`` (``texts`` maps file names to strings; ``write_texts``),
    read once by the child. Other values must be JSON-serializable and travel in the frame.
    The files are written while the child's interpreter starts, and the frame sent after
    them, so the child never opens one before it is whole.
    """

    frame: bytes
    texts: dict[str, str]


def make_manifest(
    globals: dict[str, object], function_names: list[str], limits: SandboxLimits
) -> Manifest:
    """The manifest of a sandbox; ``ValueError`` for unusable names or non-JSON values."""
    _check_names([*globals, *function_names])
    entries: dict[str, dict[str, object]] = {}
    texts: dict[str, str] = {}
    for index, (name, value) in enumerate(globals.items()):
        if isinstance(value, str):
            file_name = f"global-{index}.txt"
            texts[file_name] = value
            entries[name] = {"file": file_name}
        else:
            entries[name] = {"value": value}
    message = {
        "op": "load",
        "globals": entries,
        "functions": function_names,
        "limits": limits.for_child(),
    }
    try:
        frame = encode_frame(message)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sandbox globals must be JSON-serializable: {exc}") from None
    return Manifest(frame, texts)


def write_texts(scratch: Scratch, texts: dict[str, str]) -> None:
    """Write the string globals' files into ``init``, then make it read-only."""
    for file_name, text in texts.items():
        path = scratch.init / file_name
        write_text_in_chunks(path, text)
        path.chmod(0o444)
    scratch.init.chmod(0o555)


def write_text_in_chunks(path: Path, text: str) -> None:
    """UTF-8-encode and write ``text`` a slice at a time.

    Encoding a 100 MB document whole allocates (and page-faults) another 100 MB; slices that
    stay in the CPU cache make the write about three times faster.
    """
    with open(path, "wb") as file:
        for start in range(0, len(text), WRITE_CHUNK_CHARS):
            piece = text[start : start + WRITE_CHUNK_CHARS]
            file.write(piece.encode("utf-8", "surrogatepass"))


def _check_names(names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if not name.isidentifier() or name.startswith("__"):
            raise ValueError(f"not a usable sandbox name: {name!r}")
        if name in seen:
            raise ValueError(f"sandbox name given twice: {name!r}")
        seen.add(name)
