"""The child package with its byte-code, so a child start does not compile its modules.

The child runs with ``-B`` and, under bwrap, on a read-only mount: it never writes byte-code.
An installed wheel ships the package's ``__pycache__`` and the child uses it; a source tree
run with ``PYTHONDONTWRITEBYTECODE`` has none, and compiling the child's modules at every
start costs it about 8 ms. So the host keeps a compiled copy of the package in the user's
cache directory, named by the hash of its sources and the interpreter's cache tag (built
once, in a temporary folder renamed into place, so concurrent hosts never see half of it),
and the child runs that copy. The copy also holds the code of all its modules in one file
(``child.BUNDLE``), which the package loads its modules from. Where the cache cannot be
written, the child runs the package itself and compiles as before.

Every version of the sources gets a copy of its own, so copies would pile up. Each start
marks its copy used (its folder's modification time); the first start of each process
deletes the other copies no start has used for ``UNUSED_DAYS`` (and builds abandoned as
long). A host of an older version may still be running: a start whose copy has gone
builds it again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import marshal
import os
import py_compile
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ralph_tui.sandbox.child import BUNDLE

CACHE_FOLDER = Path("ralph-tui", "sandbox-child")
BUILDING_PREFIX = ".building-"
PYC_HEADER_BYTES = 16
"""A byte-code file's header (magic, flags, hash or date and size); the code follows."""
UNUSED_DAYS = 2
"""A copy other than the current one is deleted once no start has used it for this long."""


def compiled_child(package: Path) -> Path:
    """A compiled copy of ``package`` (same name), or ``package`` itself if none can be made.

    The sources are hashed once per process; each call checks the copy is still there
    (builds it otherwise) and marks it used.
    """
    try:
        copy = current_copy(package, cache_home() / CACHE_FOLDER)
        if copy.is_dir():
            with contextlib.suppress(OSError):  # a read-only cache is still usable
                os.utime(copy.parent)
        else:
            _build(package, copy)
    except OSError:
        return package
    return copy


def cache_home() -> Path:
    """The user's cache directory (``XDG_CACHE_HOME``, else ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


@functools.cache
def current_copy(package: Path, folder: Path) -> Path:
    """Where the copy of ``package``'s present sources lives in ``folder`` (hashed once per
    process); this first call also deletes the stale copies beside it (``prune_copies``)."""
    digest = hashlib.sha256()
    for source in sorted(package.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    built = folder / f"{sys.implementation.cache_tag}-{digest.hexdigest()[:20]}"
    prune_copies(folder, keep=built.name)
    return built / package.name


def prune_copies(folder: Path, keep: str, unused_s: float = UNUSED_DAYS * 86400) -> list[str]:
    """Delete the copies (and abandoned builds) in ``folder`` other than ``keep`` that no
    start has used for ``unused_s`` seconds; the names of those deleted."""
    cutoff = time.time() - unused_s
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []  # no cache yet, or none readable: nothing to prune
    deleted = []
    for entry in entries:
        try:
            stale = (
                entry.name != keep
                and entry.is_dir(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_mtime < cutoff
            )
        except OSError:
            continue  # deleted meanwhile by another host
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)
            deleted.append(entry.name)
    return deleted


def _build(package: Path, copy: Path) -> None:
    """Build ``copy`` (``<folder>/<tag>-<hash>/<name>``) from ``package``'s sources."""
    built = copy.parent
    built.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=built.parent, prefix=BUILDING_PREFIX))
    try:
        target_package = building / package.name
        target_package.mkdir()
        codes = {}
        for source in sorted(package.glob("*.py")):
            target = target_package / source.name
            shutil.copyfile(source, target)
            cached = Path(importlib.util.cache_from_source(str(target)))
            # The folder's name is the sources' hash, so the byte-code never needs checking.
            py_compile.compile(
                str(target),
                cfile=str(cached),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
            if source.stem != "__init__":  # the package is imported as usual, and loads the rest
                code = marshal.loads(cached.read_bytes()[PYC_HEADER_BYTES:])
                codes[f"{package.name}.{source.stem}"] = code
        (target_package / BUNDLE).write_bytes(marshal.dumps(codes))
        try:
            building.rename(built)
        except OSError:
            if not copy.is_dir():
                raise  # not another host's copy, finished first: a real failure
    except py_compile.PyCompileError as exc:
        raise OSError(f"the sandbox child does not compile: {exc}") from None
    finally:
        shutil.rmtree(building, ignore_errors=True)
