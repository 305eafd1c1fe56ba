"""A bundle's sources read again the way the run read them: each file through the same
conversion (from where ``--doc`` now puts it, or from its saved path), each external page
fetched anew. What was read says where from, and whether the file or its converter changed
since the bundle was made."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Literal

import httpx2
from pydantic import BaseModel, Field

from ralph_tui.documents import InputError, Limits
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.convert import converter_version
from ralph_tui.documents.corpus import read_one
from ralph_tui.documents.errors import NeedsOcr
from ralph_tui.documents.inputs import gather
from ralph_tui.external.cache import content_hash
from ralph_tui.external.convert import NotADocument, convert_page
from ralph_tui.external.fetch import Fetcher, FetchFailed, HostPacer
from ralph_tui.external.policy import UrlPolicy
from ralph_tui.reports.bundle import BundleSource
from ralph_tui.reports.source_places import (
    Found,
    NotADocumentFile,
    SourcePlaces,
    check_regular_file,
)

SourceStatus = Literal["read", "missing", "not_checked"]
PathFrom = Literal[Found, "doc_name", "doc_sha256"]
PATH_FROM_LABELS: dict[PathFrom, str] = {
    "bundle": "the path saved in the bundle",
    "bundle_same_bytes": "the path saved in the bundle, its bytes the ones the bundle saved",
    "beside_bundle": "by its name, beside the bundle",
    "working_folder": "by its name, in the working folder",
    "doc_name": "--doc, matched by name",
    "doc_sha256": "--doc, matched by SHA-256",
}


class SourceCheck(BaseModel):
    """One source of the bundle as it was read again."""

    name: str
    kind: Literal["file", "page"]
    status: SourceStatus
    path: str | None = None
    """The file read (``None`` for a page, or a file not found)."""
    path_from: PathFrom | None = None
    url: str | None = None
    detail: str = ""
    """Why the source is missing or was not checked."""
    sha256: str | None = None
    """Of the bytes read now (the bundle's is ``saved_sha256``)."""
    saved_sha256: str | None = None
    converter: str | None = None
    """What converted it now (the bundle's is ``saved_converter``)."""
    saved_converter: str = ""
    notes: list[str] = Field(default_factory=list)
    """What differs from the bundle: the file's bytes, the converter."""


@dataclass(frozen=True)
class SourceText:
    """A source's text now; for a PDF, its pages (``text`` is them joined), which of them
    OCR read, and which have no text layer and were not read by OCR now (and why)."""

    text: str
    pages: list[str] | None = None
    ocr_pages: frozenset[int] = frozenset()
    unread_pages: frozenset[int] = frozenset()
    unread_why: str = ""


@dataclass(frozen=True)
class Given:
    """The files ``--doc`` names, each with the name a run gives it."""

    files: list[tuple[Path, str]]
    _hashes: dict[Path, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: list[Path]) -> Given:
        """``InputError`` for a path that does not exist (checked before anything is read)."""
        for spec in specs:
            if not spec.exists():
                raise InputError(f"--doc {spec}: no such file or folder (check the path)")
        return cls(gather(specs).files if specs else [])

    def find(self, source: BundleSource) -> tuple[Path, PathFrom] | None:
        """The given file that is ``source``: by its name (or file name), then by SHA-256."""
        for path, name in self.files:
            if name == source.name:
                return path, "doc_name"
        base = PurePath(source.name).name
        for path, name in self.files:
            if PurePath(name).name == base:
                return path, "doc_name"
        for path, _name in self.files:
            if source.sha256 and self._sha256(path) == source.sha256:
                return path, "doc_sha256"
        return None

    def _sha256(self, path: Path) -> str | None:
        """The SHA-256 of the file's bytes (each file hashed once)."""
        if path not in self._hashes:
            try:
                self._hashes[path] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                self._hashes[path] = None
        return self._hashes[path]

    def unmatched(self, sources: list[BundleSource]) -> list[Path]:
        """Given files that no source of the bundle took."""
        used = {found[0] for source in sources if (found := self.find(source))}
        return [path for path, _ in self.files if path not in used]


def read_file_source(
    source: BundleSource,
    given: Given,
    places: SourcePlaces,
    limits: Limits,
    cache: ExtractionCache | None,
) -> tuple[SourceCheck, SourceText | None]:
    """``source`` read from where ``--doc`` puts it, else from its saved path or by its name
    in the places ``places`` allows (see ``reports.source_places``)."""
    check = SourceCheck(
        name=source.name,
        kind="file",
        status="missing",
        saved_sha256=source.sha256,
        saved_converter=source.converter,
    )
    found: tuple[Path, PathFrom] | str | None = given.find(source)
    if found is None:
        found = places.find(source.name, source.path, source.sha256, limits.file_bytes)
    if isinstance(found, str):
        check.detail = f"{found}; give its new place with --doc"
        return check, None
    path, check.path_from = found
    check.path = str(path)
    try:
        check_regular_file(path)
        document = read_one(path, source.name, limits, cache=cache)
    except (NotADocumentFile, OSError) as exc:
        check.detail = str(exc)
        return check, None
    except InputError as exc:
        if isinstance(exc, NeedsOcr):  # there, but unreadable here: unknown, not missing
            check.status = "not_checked"
        check.detail = exc.one_line()
        return check, None
    check.status = "read"
    _note_changes(check, document.sha256, document.converter)
    return check, SourceText(
        document.text,
        document.pages,
        frozenset(document.ocr_pages),
        frozenset(document.unread_pages),
        document.unread_why,
    )


def _note_changes(check: SourceCheck, sha256: str, converter: str) -> None:
    check.sha256, check.converter = sha256, converter
    what = "file" if check.kind == "file" else "page"
    if check.saved_sha256 and sha256 != check.saved_sha256:
        check.notes.append(
            f"the {what} changed since the bundle (SHA-256 {check.saved_sha256[:12]}… "
            f"then, {sha256[:12]}… now)"
        )
    if check.saved_converter and converter != check.saved_converter:
        check.notes.append(
            f"converted by {converter} now, by {check.saved_converter} for the bundle"
        )


async def fetch_page_sources(
    sources: list[BundleSource], fetcher: Fetcher
) -> list[tuple[SourceCheck, SourceText | None]]:
    """Every page of ``sources`` fetched anew, at once."""
    return list(await asyncio.gather(*(_fetch_page(source, fetcher) for source in sources)))


async def _fetch_page(
    source: BundleSource, fetcher: Fetcher
) -> tuple[SourceCheck, SourceText | None]:
    url = source.url or source.name
    check = SourceCheck(
        name=source.name,
        kind="page",
        status="missing",
        url=url,
        saved_sha256=source.sha256,
        saved_converter=source.converter,
    )
    try:
        fetched = await fetcher.get(url)
        converted = convert_page(
            fetched.body, fetched.headers.get("content-type", ""), fetched.final_url
        )
    except FetchFailed as exc:
        if not exc.permanent:
            check.status = "not_checked"
        check.detail = f"fetching it failed: {exc}"
        return check, None
    except NotADocument as exc:
        check.detail = f"it is no longer a document: {exc}"
        return check, None
    check.status = "read"
    _note_changes(check, content_hash(fetched.body), converter_version(converted.format))
    return check, SourceText(converted.text, converted.pages)


def not_fetched(source: BundleSource) -> SourceCheck:
    """A page left alone with ``--offline``."""
    return SourceCheck(
        name=source.name,
        kind="page",
        status="not_checked",
        url=source.url or source.name,
        detail="not fetched (--offline)",
        saved_sha256=source.sha256,
        saved_converter=source.converter,
    )


def page_fetcher(
    client: httpx2.AsyncClient, timeout_s: float, max_bytes: int, policy: UrlPolicy
) -> Fetcher:
    """A fetcher as the crawler builds one, under the same URL policy, without a delay
    between requests (one request per page)."""
    return Fetcher(client, HostPacer(0.0), timeout_s=timeout_s, max_bytes=max_bytes, policy=policy)
