"""The child package with its byte-code, so a child start does not compile its modules.

The child runs with ``-B`` and, under bwrap, on a read-only mount: it never writes byte-code.
An installed wheel ships the package's ``__pycache__`` and the child uses it; a source tree
run with ``PYTHONDONTWRITEBYTECODE`` has none, and compiling the child's modules at every
start costs it about 8 ms. So the host keeps a compiled copy of the package in the user's
cache directory, named by the hash of its sources and the interpreter's cache tag (built
once, in a temporary folder renamed into place, so concurrent hosts never see half of it),
and the child runs that copy. Where the cache cannot be written, the child runs the package
itself and compiles as before.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import py_compile
import shutil
import sys
import tempfile
from pathlib import Path

CACHE_FOLDER = Path("ralph-tui", "sandbox-child")


@functools.cache
def compiled_child(package: Path) -> Path:
    """A compiled copy of ``package`` (same name), or ``package`` itself if none can be made."""
    try:
        return _compiled_copy(package)
    except OSError:
        return package


def cache_home() -> Path:
    """The user's cache directory (``XDG_CACHE_HOME``, else ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _compiled_copy(package: Path) -> Path:
    sources = sorted(package.glob("*.py"))
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    folder = cache_home() / CACHE_FOLDER
    built = folder / f"{sys.implementation.cache_tag}-{digest.hexdigest()[:20]}"
    if (built / package.name).is_dir():
        return built / package.name
    folder.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=folder, prefix=".building-"))
    try:
        copy = building / package.name
        copy.mkdir()
        for source in sources:
            target = copy / source.name
            shutil.copyfile(source, target)
            # The folder's name is the sources' hash, so the byte-code never needs checking.
            py_compile.compile(
                str(target),
                cfile=importlib.util.cache_from_source(str(target)),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
        try:
            building.rename(built)
        except OSError:
            if not (built / package.name).is_dir():
                raise  # not another host's copy, finished first: a real failure
    except py_compile.PyCompileError as exc:
        raise OSError(f"the sandbox child does not compile: {exc}") from None
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return built / package.name
