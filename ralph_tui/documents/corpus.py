"""A run's documents as one text (the sandbox's ``context``) plus a table of where each
document and each page sits in it, and where any span of that text came from."""

from __future__ import annotations

import bisect
import errno
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings
from ralph_tui.config.run_groups import DocumentSettings
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.confine import Confinement, OutsideError, read_file
from ralph_tui.documents.convert import (
    PAGE_SEPARATOR,
    Extracted,
    Heading,
    OcrNeeded,
    OcrPlan,
    cache_key,
    extract,
)
from ralph_tui.documents.detect import Format, UnreadableFile, detect_format
from ralph_tui.documents.errors import InputError, NeedsOcr
from ralph_tui.documents.inputs import gather, missing_document
from ralph_tui.evidence import OCR_MARK

DOCUMENT_SEPARATOR = "\n\n"

CACHED_FORMATS = frozenset({"pdf", "html", "docx", "image"})
MIB = 1024 * 1024

OnProgress = Callable[[str, int, int], None]
"""Conversion progress: document name, pages done, pages in all."""


@dataclass(frozen=True)
class Limits:
    """Size caps: one file, and all files of a run together (bytes on disk)."""

    file_bytes: int = 200 * MIB
    corpus_bytes: int = 500 * MIB
    ocr_pages: int = DocumentSettings.model_fields["ocr_max_pages"].default
    """Pages of one document read by OCR at most (0: none): ``RALPH_OCR_MAX_PAGES``."""
    ocr_page_timeout_s: float = DocumentSettings.model_fields["ocr_page_timeout_s"].default
    """Seconds OCR may spend on one page: ``RALPH_OCR_PAGE_TIMEOUT_S``."""

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            int(settings.doc_max_mb * MIB),
            int(settings.corpus_max_mb * MIB),
            settings.ocr_max_pages,
            settings.ocr_page_timeout_s,
        )


@dataclass
class Document:
    name: str
    path: Path
    format: Format
    converter: str
    sha256: str
    text: str
    pages: list[str] | None = None
    empty_pages: list[int] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    """Its headings, each at its offset in ``text`` (structure beside the text)."""
    ocr_pages: list[int] = field(default_factory=list)
    """1-based numbers of its pages whose text OCR read (a scan; every page of an image)."""
    unread_pages: list[int] = field(default_factory=list)
    """Of ``empty_pages``, those OCR did not try; ``unread_why`` says why."""
    unread_why: str = ""

    def record(self) -> dict[str, Any]:
        """What ``session.json`` keeps of it."""
        return {
            "name": self.name,
            "path": str(self.path.resolve()),
            "sha256": self.sha256,
            "format": self.format,
            "converter": self.converter,
            "pages": len(self.pages) if self.pages is not None else None,
            "ocr_pages": self.ocr_pages,
        }


@dataclass(frozen=True)
class Source:
    """Where a span of the corpus text came from."""

    document: str
    page: int | None
    ocr: bool = False
    """Whether the text there was read by OCR (a scanned page, an image)."""

    @property
    def label(self) -> str:
        where = f"{self.document} p. {self.page}" if self.page else self.document
        return f"{where} {OCR_MARK}" if self.ocr else where

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document, "page": self.page, "label": self.label, "ocr": self.ocr}


@dataclass
class Corpus:
    """The documents of a run; ``text`` is the sandbox's ``context``, ``table`` its
    ``documents`` (name, path, format, start, end, pages with their start and end, headings
    with their level, title and start)."""

    documents: list[Document]
    text: str
    table: list[dict[str, Any]]
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped_images: list[str] = field(default_factory=list)
    """Of ``skipped``, a folder's images (not read by OCR unless named or globbed)."""

    def notices(self) -> list[str]:
        """What a person should know about the documents read (and not read)."""
        images = set(self.skipped_images)
        notes = [
            f"skipped (not a supported document): {name}"
            for name in self.skipped
            if name not in images
        ]
        if self.skipped_images:
            notes.append(
                "skipped (a folder's images are not read by OCR; name them with --doc or a "
                f"glob to read them): {', '.join(self.skipped_images)}"
            )
        notes += [f"not read: {failure}" for failure in self.failed]
        for d in self.documents:
            notes += _page_notes(d)
        return notes

    def source_of(self, start: int) -> Source | None:
        """The document (and page) holding offset ``start`` of ``text``."""
        entry = self._entry_at(start)
        if entry is None:
            return None
        page = _page_at(entry, start)
        ocr = bool(page.get("ocr")) if page else False
        return Source(entry["name"], page["page"] if page else None, ocr)

    def passage_bounds(self, start: int) -> tuple[int, int]:
        """The span of the page (for a PDF) or else the document holding ``start``."""
        entry = self._entry_at(start)
        page = _page_at(entry, start) if entry else None
        if page is not None and start <= page["end"]:
            return page["start"], page["end"]
        return self.bounds_of(start)

    def bounds_of(self, start: int) -> tuple[int, int]:
        """The span of the document holding ``start`` (the whole text if none does)."""
        entry = self._entry_at(start)
        return (entry["start"], entry["end"]) if entry else (0, len(self.text))

    def _entry_at(self, offset: int) -> dict[str, Any] | None:
        """The table entry of the document whose text holds ``offset``."""
        index = bisect.bisect_right([entry["start"] for entry in self.table], offset) - 1
        if index < 0 or offset >= self.table[index]["end"]:
            return None
        entry: dict[str, Any] = self.table[index]
        return entry


def _page_notes(document: Document) -> list[str]:
    """What a person should know of a document's pages: which OCR read, which have no
    text, and which were not read (and why)."""
    notes = []
    if document.ocr_pages:
        them = "them" if len(document.ocr_pages) > 1 else "it"
        notes.append(
            f"{document.name}: {_pages(document.ocr_pages)} read by OCR; quotes from {them} "
            f"are marked {OCR_MARK}"
        )
    if document.unread_pages:
        they = "they" if len(document.unread_pages) > 1 else "it"
        notes.append(
            f"{document.name}: {_pages(document.unread_pages)} not read (no text layer): "
            f"{document.unread_why}; {they} cannot be quoted"
        )
    blank = [number for number in document.empty_pages if number not in document.unread_pages]
    if blank:
        what = "no text layer, and OCR found no text" if document.ocr_pages else "no text layer"
        notes.append(f"{document.name}: {_pages(blank)} ({what}): nothing to quote there")
    return notes


def _pages(numbers: list[int]) -> str:
    return f"page{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"


def _page_at(entry: dict[str, Any], offset: int) -> dict[str, int] | None:
    """The last page of ``entry`` starting at or before ``offset`` (``None`` without pages)."""
    pages = entry["pages"]
    index = bisect.bisect_right([page["start"] for page in pages], offset) - 1
    return pages[index] if index >= 0 else None


def read_corpus(
    specs: list[Path],
    limits: Limits = Limits(),
    on_progress: OnProgress | None = None,
    cache: ExtractionCache | None = None,
    within: Confinement | None = None,
) -> Corpus:
    """Read every document ``specs`` name; ``InputError`` when nothing usable remains.

    A single named file that cannot be read is an error; in a corpus of several, a file
    that fails is listed in ``failed`` and the run goes on with the rest. ``within``: the
    folders every file read must lie in (resolved), when ``specs`` come from someone not
    trusted; what leads outside is listed in ``failed`` too.
    """
    found = gather(specs, within)
    total = sum(_size(path) for path, _ in found.files)
    if total > limits.corpus_bytes:
        raise InputError(
            f"the documents come to {total / MIB:,.0f} MB, past the corpus cap of "
            f"{limits.corpus_bytes / MIB:,.0f} MB (RALPH_CORPUS_MAX_MB)"
        )
    documents, failed = [], []
    for path, name in found.files:
        try:
            documents.append(read_one(path, name, limits, on_progress, cache, within))
        except InputError as exc:
            if len(found.files) == 1:
                raise
            failed.append(exc.one_line())
    if not documents:
        raise InputError("no document could be read: " + "; ".join(failed))
    corpus = assemble(documents, found.skipped, [*found.outside, *failed])
    corpus.skipped_images = found.skipped_images
    return corpus


def read_one(
    path: Path,
    name: str,
    limits: Limits,
    on_progress: OnProgress | None = None,
    cache: ExtractionCache | None = None,
    within: Confinement | None = None,
) -> Document:
    """One document, converted; ``InputError`` (one line, naming the file) if it cannot be.
    ``within``: ``path`` is a real path inside it, opened as such (see ``read_file``)."""
    if not path.exists():
        raise missing_document(path)
    size = _size(path)
    if size > limits.file_bytes:
        raise _past_cap(path, size, limits)
    try:
        data = read_file(path, limits.file_bytes, within)
    except OutsideError:
        raise InputError(within.outside_note(str(path)) if within else str(path)) from None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise _past_cap(path, limits.file_bytes + 1, limits) from None
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not data.strip():
        raise InputError(f"document {path} is empty: nothing to analyse")
    sha256 = hashlib.sha256(data).hexdigest()
    try:
        fmt = detect_format(data, path)
        # Confined, a PDF is converted from the bytes read, never opened again by path.
        source = path if within is None else None
        extracted = _converted(source, data, fmt, name, sha256, on_progress, cache, limits)
    except UnreadableFile as exc:
        kind = NeedsOcr if isinstance(exc, OcrNeeded) else InputError
        raise kind(f"{path} {exc}", hint=exc.hint) from None
    return Document(
        name=name,
        path=path,
        format=fmt,
        converter=extracted.converter,
        sha256=sha256,
        text=extracted.text,
        pages=extracted.pages,
        empty_pages=extracted.empty_pages,
        headings=extracted.headings,
        ocr_pages=extracted.ocr_pages,
        unread_pages=extracted.unread_pages,
        unread_why=extracted.unread_why,
    )


def _past_cap(path: Path, size: int, limits: Limits) -> InputError:
    return InputError(
        f"{path} is {size / MIB:,.0f} MB, past the cap of {limits.file_bytes / MIB:,.0f} MB "
        "per document (RALPH_DOC_MAX_MB)"
    )


def _converted(
    path: Path | None,
    data: bytes,
    fmt: Format,
    name: str,
    sha256: str,
    on_progress: OnProgress | None,
    cache: ExtractionCache | None,
    limits: Limits,
) -> Extracted:
    """The document's text: from the cache when it has it, else converted (and kept).
    OCR's progress is reported under the document's name marked ``(OCR)``."""
    use_cache = cache is not None and fmt in CACHED_FORMATS
    ocr_progress = f"{name} {OCR_MARK}"
    plan = OcrPlan(
        limits.ocr_pages,
        (lambda done, total: on_progress(ocr_progress, done, total)) if on_progress else None,
        limits.ocr_page_timeout_s,
    )
    key = cache_key(fmt, plan)
    if cache is not None and use_cache:
        cached = cache.get(sha256, key, name)
        if cached is not None:
            return cached
    progress = (lambda done, total: on_progress(name, done, total)) if on_progress else None
    extracted = extract(data, fmt, progress, path, plan)
    if cache is not None and use_cache and not extracted.ocr_timed_out:
        cache.put(sha256, key, extracted)
    return extracted


def assemble(
    documents: list[Document], skipped: list[str] | None = None, failed: list[str] | None = None
) -> Corpus:
    """Join ``documents`` into one text with the table of their (and their pages') spans.

    One document is its text as it is; several are each introduced by a header line naming
    the file, so code (and the model) can tell where one ends and the next begins.
    """
    parts: list[str] = []
    table: list[dict[str, Any]] = []
    offset = 0
    for document in documents:
        header = f"===== {document.name} =====\n\n" if len(documents) > 1 else ""
        if parts:
            parts.append(DOCUMENT_SEPARATOR)
            offset += len(DOCUMENT_SEPARATOR)
        parts.append(header + document.text)
        start = offset + len(header)
        table.append(
            {
                "name": document.name,
                "path": str(document.path),
                "format": document.format,
                "start": start,
                "end": start + len(document.text),
                "pages": _page_spans(document, start),
                "headings": [
                    {**heading.to_json(), "start": start + heading.start}
                    for heading in document.headings
                ],
            }
        )
        offset = start + len(document.text)
    return Corpus(documents, "".join(parts), table, list(skipped or []), list(failed or []))


def _page_spans(document: Document, start: int) -> list[dict[str, int]]:
    """Each page's number and span; ``"ocr": True`` on a page whose text OCR read."""
    spans = []
    ocr = set(document.ocr_pages)
    for number, page in enumerate(document.pages or [], 1):
        span = {"page": number, "start": start, "end": start + len(page)}
        if number in ocr:
            span["ocr"] = True
        spans.append(span)
        start += len(page) + len(PAGE_SEPARATOR)
    return spans


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
