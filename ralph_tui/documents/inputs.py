"""Which files a run reads: ``--doc`` values that name files, folders or glob patterns.

Confined (``within``: the paths came from someone not trusted), every file is resolved and
kept only when its real path lies in the allowed folders, and kept as that real path, so the
file opened is the one checked; a symbolic link that leads out is left out with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ralph_tui.documents.confine import Confinement, read_file, read_head
from ralph_tui.documents.detect import SNIFF_BYTES, Format, UnsupportedFormat, detect_format
from ralph_tui.documents.errors import InputError
from ralph_tui.documents.globbing import expand, is_pattern


@dataclass
class Inputs:
    """The files to read, each with the name it is shown by, what a folder held that is not
    a document, and (confined) what was left out for leading outside."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    skipped_images: list[str] = field(default_factory=list)
    """Of ``skipped``, the images (PNG, JPEG, TIFF): a folder's pictures are not read by OCR
    (seconds each, and mostly logos and screenshots); named or matched by a glob, they are."""
    outside: list[str] = field(default_factory=list)
    """One line for each path left out, saying it leads outside the allowed folders."""


def gather(specs: list[Path], within: Confinement | None = None) -> Inputs:
    """Expand ``--doc`` values in order; ``InputError`` for one that names nothing usable
    (confined: nothing inside ``within``)."""
    found = Inputs()
    for spec in specs:
        if spec.is_dir():
            _add_folder(found, spec, within)
        elif spec.exists() or not is_pattern(str(spec)):
            _add_file(found, spec, within)
        else:
            _add_glob(found, spec, within)
    found.files = list({path.resolve(): (path, name) for path, name in found.files}.values())
    return found


MISSING_HINT = "check the path"


def missing_document(path: Path) -> InputError:
    """The error for a document that is not there (what every way of starting a run says)."""
    return InputError(f"document not found: {path}", hint=MISSING_HINT)


def _add_file(found: Inputs, path: Path, within: Confinement | None) -> None:
    if within is None or not path.exists():
        found.files.append((path, path.name))
        return
    real = within.real_inside(path)
    if real is None:
        raise InputError(within.outside_note(str(path)))
    found.files.append((real, path.name))


def _add_folder(found: Inputs, folder: Path, within: Confinement | None) -> None:
    if within is not None and within.real_inside(folder) is None:
        raise InputError(within.outside_note(str(folder)))
    try:
        paths = sorted(p for p in folder.rglob("*") if not _hidden(p, folder))
    except OSError as exc:
        raise InputError(f"cannot read the folder {folder}: {exc.strerror or exc}") from None
    documents = []
    outside = len(found.outside)
    for path in paths:
        name = str(path.relative_to(folder.parent)) if folder.name else str(path)
        real = _checked(found, path, name, within)
        if real is None or not real.is_file():
            continue
        fmt = _document_format(real, within)
        if fmt is not None and fmt != "image":
            documents.append((real, name))
        else:
            found.skipped.append(name)
            if fmt == "image":
                found.skipped_images.append(name)
    if not documents:
        what = f" (skipped: {', '.join(found.skipped[:5])})" if found.skipped else ""
        if len(found.outside) > outside:
            what += f" ({_leading_out(found.outside[outside:])})"
        hint = None
        if found.skipped_images:
            hint = f"its images are read by OCR when named or matched: --doc '{folder}/*.png'"
        raise InputError(
            f"no documents in the folder {folder}{what}: it holds no supported file", hint=hint
        )
    found.files.extend(documents)


def _add_glob(found: Inputs, pattern: Path, within: Confinement | None) -> None:
    outside = len(found.outside)
    files = []
    for match in expand(pattern, within, found.outside):
        real = _checked(found, match, str(match), within)
        if real is not None and real.is_file():
            files.append((real, str(match)))
    if not files:
        where = f" inside the folders this server may read ({within.describe()})" if within else ""
        also = f" ({_leading_out(found.outside[outside:])})" if len(found.outside) > outside else ""
        raise InputError(f"no file matches {pattern}{where}{also} (check the pattern)")
    found.files.extend(files)


def _checked(found: Inputs, path: Path, name: str, within: Confinement | None) -> Path | None:
    """``path`` as it is to be opened: as it is, or confined its real path when that lies
    inside (else ``None``, a link that leads out being noted)."""
    if within is None:
        return path
    real = within.real_inside(path)
    if real is None and path.is_symlink():
        found.outside.append(within.outside_note(name))
    return real


def _leading_out(notes: list[str]) -> str:
    return f"{len(notes)} left out: " + "; ".join(notes[:3])


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _document_format(path: Path, within: Confinement | None) -> Format | None:
    """The format of the document at ``path``, ``None`` when it is none (or empty)."""
    try:
        head = read_head(path, SNIFF_BYTES, within)
        # A ZIP's directory is at its end: a Word file is told apart only from all of it.
        data = read_file(path, within=within) if head.startswith(b"PK") else head
        fmt = detect_format(data, path)
    except (OSError, UnsupportedFormat):
        return None
    return fmt if head.strip() else None
