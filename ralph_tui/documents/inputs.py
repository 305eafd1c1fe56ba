"""Which files a run reads: ``--doc`` values that name files, folders or glob patterns."""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path

from ralph_tui.documents.detect import SNIFF_BYTES, UnsupportedFormat, detect_format
from ralph_tui.documents.errors import InputError

GLOB_CHARS = frozenset("*?[")


@dataclass
class Inputs:
    """The files to read, each with the name it is shown by, and what a folder held that
    is not a document."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def gather(specs: list[Path]) -> Inputs:
    """Expand ``--doc`` values in order; ``InputError`` for one that names nothing usable."""
    found = Inputs()
    for spec in specs:
        if spec.is_dir():
            _add_folder(found, spec)
        elif spec.exists() or not GLOB_CHARS & set(str(spec)):
            found.files.append((spec, spec.name))
        else:
            _add_glob(found, spec)
    found.files = list({path.resolve(): (path, name) for path, name in found.files}.values())
    return found


def _add_folder(found: Inputs, folder: Path) -> None:
    try:
        paths = sorted(p for p in folder.rglob("*") if p.is_file() and not _hidden(p, folder))
    except OSError as exc:
        raise InputError(f"cannot read the folder {folder}: {exc.strerror or exc}") from None
    documents = []
    for path in paths:
        name = str(path.relative_to(folder.parent)) if folder.name else str(path)
        if _readable_document(path):
            documents.append((path, name))
        else:
            found.skipped.append(name)
    if not documents:
        what = f" (skipped: {', '.join(found.skipped[:5])})" if found.skipped else ""
        raise InputError(f"no documents in the folder {folder}{what}: it holds no supported file")
    found.files.extend(documents)


def _add_glob(found: Inputs, pattern: Path) -> None:
    matches = sorted(Path(p) for p in glob.glob(str(pattern), recursive=True))
    files = [p for p in matches if p.is_file()]
    if not files:
        raise InputError(f"no file matches {pattern} (check the pattern)")
    found.files.extend((p, str(p)) for p in files)


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _readable_document(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        # A ZIP's directory is at its end: a Word file is told apart only from all of it.
        detect_format(path.read_bytes() if head.startswith(b"PK") else head, path)
    except (OSError, UnsupportedFormat):
        return False
    return bool(head.strip())
