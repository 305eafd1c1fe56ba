"""A page of the run's documents as a picture a vision model can read, for ``look(page)``:
a PDF's page, rendered, or an image file's page (a TIFF's frame; a PNG or a JPEG is one
page), scaled down within the same bounds.

A PDF page is rendered in colour (a chart's series differ by colour) with pypdfium2, at most
``MAX_PIXELS`` and ``MAX_EDGE`` pixels: what Anthropic's Messages API reads without scaling
down (about 930 x 1210 px for a Letter page, 110 dpi: a filing's 8-point table figures stay
legible), about 1,500 input tokens at either provider; 150-250 KB of PNG and 0.2-0.3 s for a
10-K page. An image is encoded again, as a JPEG when it was one, else as a PNG (a TIFF is
neither provider's format), turned upright as its EXIF says (a page OCR found scanned
sideways is sent as scanned: a vision model reads it turned); one past ``MAX_IMAGE_PIXELS``
is refused before it is decoded. The page is rendered from the bytes the document was
converted from, read again and checked against its SHA-256 (a file changed or swapped
since the run read it is refused, never rendered), in a child process (``page_render.py``)
stopped after ``RENDER_TIMEOUT_S``.

Every refusal is a ``PageRefused`` whose message is the one line the model is shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import io
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.documents import page_render
from ralph_tui.documents.confine import read_file
from ralph_tui.documents.corpus import Document
from ralph_tui.documents.detect import Format
from ralph_tui.documents.scans import MAX_IMAGE_PIXELS

MAX_PIXELS = 1_150_000
"""Pixels of a rendered page: what Anthropic reads without scaling an image down."""
MAX_EDGE = 1568
"""Longest edge of a rendered page, in pixels (the same provider's other bound)."""
MAX_PNG_BYTES = 4 * 1024 * 1024
"""A rendered page's picture past this is refused (Anthropic takes at most 5 MB an image)."""
RENDER_TIMEOUT_S = 30.0
"""A page not rendered in this time is refused (and its renderer killed)."""
NAMES_SHOWN = 8
"""Document names a refusal lists at most."""
PAGED_FORMATS: tuple[Format, ...] = ("pdf", "image")
"""The formats whose pages ``look`` can show."""
MEDIA_TYPES = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg"}
"""A rendered picture's media type, by its first bytes."""


class PageRefused(ValueError):
    """A page that cannot be looked at; the message says why and what to do, in one line."""


@dataclass(frozen=True)
class PageImage:
    """One rendered page: its document, number, picture (PNG or JPEG bytes), media type and
    size in pixels."""

    document: str
    page: int
    data: bytes
    media_type: str
    width: int
    height: int


class DocumentPages:
    """The pages of a run's PDF and image documents, found by document name and page
    number, rendered on demand. ``max_file_bytes`` bounds the file read again to render
    (the run's cap)."""

    def __init__(self, documents: Sequence[Document], max_file_bytes: int) -> None:
        self.documents = list(documents)
        self.max_file_bytes = max_file_bytes
        self._verified: dict[str, bytes] = {}
        """The bytes of the last document read again and found unchanged, by name (one at a
        time: a run's PDFs together may be hundreds of MB)."""

    @property
    def has_pages(self) -> bool:
        """Whether any document has pages to look at (a PDF, an image)."""
        return any(document.format in PAGED_FORMATS for document in self.documents)

    def find(self, page: object, document: object = None) -> tuple[Document, int]:
        """The document and page ``look`` asks for, checked: ``document`` a name of the
        run's documents (``None``: the only PDF or image), ``page`` a number within it."""
        chosen = self._document(document)
        if isinstance(page, bool) or not isinstance(page, int):
            raise PageRefused(f"look: page must be a whole page number, not {type(page).__name__}")
        count = len(chosen.pages or [])
        if not 1 <= page <= count:
            raise PageRefused(
                f"look: {chosen.name} has pages 1 to {count}; page {_short(page)} is not one"
            )
        return chosen, page

    def text(self, document: Document, page: int) -> str:
        """The page's text as the run converted it."""
        return (document.pages or [""])[page - 1]

    async def render(self, document: Document, page: int) -> PageImage:
        """The page rendered (see the module's docstring); ``PageRefused`` when its file
        changed or cannot be read, the page cannot be rendered in time, or its picture
        comes out too large."""
        data = await asyncio.to_thread(self._bytes, document)
        how: list[str | int] = ["pdf", page, MAX_EDGE, MAX_PIXELS]
        if document.format == "image":
            how = ["image", page, MAX_EDGE, MAX_PIXELS, MAX_IMAGE_PIXELS]
        picture = await _rendered(data, how, f"page {page} of {document.name}")
        if len(picture) > MAX_PNG_BYTES:
            raise PageRefused(
                f"look: page {page} of {document.name} renders to {len(picture) // 1024:,} KB, "
                f"past the {MAX_PNG_BYTES // 1024:,} KB a picture may have; read its text instead"
            )
        media_type, (width, height) = _picture_kind(picture)
        return PageImage(document.name, page, picture, media_type, width, height)

    def _document(self, name: object) -> Document:
        paged = [document for document in self.documents if document.format in PAGED_FORMATS]
        if name is None:
            if len(paged) == 1:
                return paged[0]
            raise PageRefused(
                f"look: {len(paged)} PDF or image documents; say which with document=NAME "
                f"(one of {_names(paged)})"
            )
        if not isinstance(name, str):
            raise PageRefused(f"look: document must be a name, not {type(name).__name__}")
        found = next((document for document in self.documents if document.name == name), None)
        if found is None:
            raise PageRefused(
                f"look: no document is named {_short(name)}; PDFs and images: {_names(paged)}"
            )
        if found.format not in PAGED_FORMATS:
            raise PageRefused(
                f"look: {found.name} is a {found.format} document, not a PDF or an image: it "
                "has no pages to render; read its text in `context`"
            )
        return found

    def _bytes(self, document: Document) -> bytes:
        if document.name not in self._verified:
            try:
                if not stat.S_ISREG(os.stat(document.path).st_mode):
                    # A pipe put in its place would never end the read.
                    raise OSError(errno.EINVAL, "no longer a regular file")
                data = read_file(document.path, self.max_file_bytes)
            except OSError as exc:
                raise PageRefused(
                    f"look: {document.name} cannot be read again to render ({exc.strerror or exc})"
                ) from None
            if hashlib.sha256(data).hexdigest() != document.sha256:
                raise PageRefused(
                    f"look: {document.name} changed on disk since the run read it; not rendered"
                )
            self._verified = {document.name: data}
        return self._verified[document.name]


async def _rendered(data: bytes, how: list[str | int], where: str) -> bytes:
    """The picture of a page of the document ``data``, from a child ``page_render.py`` run
    with the arguments ``how`` (isolated: no script folder or environment on its path)."""
    script = str(Path(page_render.__file__))
    child = await asyncio.create_subprocess_exec(
        *(sys.executable, "-I", script, *map(str, how)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        picture, error = await asyncio.wait_for(child.communicate(data), RENDER_TIMEOUT_S)
    except TimeoutError:
        raise PageRefused(
            f"look: {where} did not render in {RENDER_TIMEOUT_S:.0f} s; read its text instead"
        ) from None
    finally:
        if child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
    if child.returncode != 0:
        reason = error.decode("utf-8", "replace").strip()[:200] or f"exit {child.returncode}"
        raise PageRefused(f"look: {where} cannot be rendered ({reason})")
    return picture


def _picture_kind(picture: bytes) -> tuple[str, tuple[int, int]]:
    """A rendered picture's media type and size in pixels, read from its header."""
    from PIL import Image

    media_type = next(
        (kind for head, kind in MEDIA_TYPES.items() if picture.startswith(head)), None
    )
    if media_type is None:
        raise PageRefused("look: the page was rendered to a picture of no known kind")
    with Image.open(io.BytesIO(picture)) as image:
        return media_type, image.size


def _names(documents: Sequence[Document]) -> str:
    names = [repr(document.name) for document in documents[:NAMES_SHOWN]]
    more = len(documents) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "") if names else "none"


def _short(value: object, limit: int = 40) -> str:
    """A value the model passed, shown within ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
