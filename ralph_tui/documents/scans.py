"""Pages with no text layer read by OCR (``ocr``): a PDF's scanned pages, rendered first,
and image files given as documents (PNG, JPEG, TIFF; each frame of a TIFF a page).

The work is bounded: at most ``max_pages`` pages a document are read (the rest are listed
as unread, saying why), each picture at most ``MAX_PIXELS`` (a PDF page is rendered at
``DPI``, less for a large page; a larger image is scaled down), an image file past
``MAX_IMAGE_PIXELS`` is refused before it is decoded, and each page in at most
``timeout_s`` seconds (``RALPH_OCR_PAGE_TIMEOUT_S``): a page not read in time is listed as
unread, and once the engine is still busy with such a page when the next one's time is up,
the document's remaining pages are too (at most about two time limits lost a document).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph_tui.counts import counted
from ralph_tui.documents import ocr
from ralph_tui.documents.detect import UnreadableFile
from ralph_tui.documents.pdf import PDFIUM_LOCK

DPI = 200
"""Resolution a scanned PDF page is rendered at for OCR (8-point print stays legible)."""
MAX_PIXELS = 6_000_000
"""Pixels of a picture OCR reads at most (a Letter page at 200 dpi is 3.7 million)."""
MAX_IMAGE_PIXELS = 100_000_000
"""An image file larger than this is refused unread (a decompression bomb, or a poster)."""

OnPage = Callable[[int, int], None]


class UnreadableImage(UnreadableFile):
    """An image file that cannot be read: damaged, too large, or with no text OCR can read."""


@dataclass
class OcrResult:
    """What OCR made of a document's pages without text: the text of each page it read
    (by 1-based number), the pages it did not try and why."""

    texts: dict[int, str] = field(default_factory=dict)
    untried: list[int] = field(default_factory=list)
    why_untried: str = ""
    engine: str | None = None
    timed_out: bool = False
    """Whether a page went unread for want of time (which another run may have)."""

    def give_up(self, numbers: Sequence[int], why: str) -> None:
        """List ``numbers`` as untried, ``why`` among the reasons (once)."""
        self.untried.extend(numbers)
        if why not in self.why_untried:
            self.why_untried = "; ".join(filter(None, [self.why_untried, why]))

    def timed_out_on(self, pending: Sequence[int], exc: ocr.OcrTimedOut) -> bool:
        """``pending[0]`` ran out of time: it is untried, and when the engine was still
        busy with an earlier page, so are the rest (``True``: stop reading)."""
        self.timed_out = True
        gave_up = list(pending) if exc.engine_busy else list(pending[:1])
        self.give_up(gave_up, _out_of_time(exc.timeout_s, exc.engine_busy))
        return exc.engine_busy


def read_scanned_pages(
    source: Any,
    numbers: Sequence[int],
    max_pages: int,
    on_page: OnPage | None = None,
    timeout_s: float | None = None,
) -> OcrResult:
    """The pages ``numbers`` (1-based) of the PDF ``source`` (a path or its bytes) read by
    OCR, at most ``max_pages`` of them, each within ``timeout_s``; the others listed as
    untried. A page that shows no picture (a blank page, a rule or a box: nothing OCR could
    read) is left as it is, neither read nor untried."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:  # (held for pdfium's calls only, not while OCR reads a picture)
        document = pdfium.PdfDocument(str(source) if not isinstance(source, bytes) else source)
    try:
        with PDFIUM_LOCK:
            pictured = [number for number in numbers if _shows_picture(document, number)]
        engine = ocr.engine_name()
        if engine is None:
            return OcrResult(untried=pictured, why_untried=ocr.missing_note())
        tried, rest = pictured[:max_pages], pictured[max_pages:]
        result = OcrResult(engine=engine, untried=rest)
        if rest:
            result.why_untried = _past_bound(max_pages)
        for done, number in enumerate(tried, 1):
            try:
                with PDFIUM_LOCK:
                    picture = _rendered(document, number)
                result.texts[number] = _read(picture, timeout_s)
            except ocr.OcrUnavailable:
                raise
            except ocr.OcrTimedOut as exc:
                if result.timed_out_on(tried[done - 1 :], exc):
                    break
            except Exception as exc:  # pdfium's or the engine's, on one damaged page
                result.give_up(
                    [number], f"a page could not be rendered or read ({type(exc).__name__})"
                )
            if on_page is not None:
                on_page(done, len(tried))
        result.untried.sort()
        return result
    finally:
        with PDFIUM_LOCK:
            document.close()


def _shows_picture(document: Any, number: int) -> bool:
    """Whether page ``number`` holds an image (a scan's page is one), in a form or not."""
    import pypdfium2.raw as pdfium_c

    page = document[number - 1]
    try:
        return next(page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)), None) is not None
    finally:
        page.close()


def _rendered(document: Any, number: int) -> Any:
    """Page ``number`` of the open PDF ``document`` as a grey picture within the bounds."""
    page = document[number - 1]
    try:
        width, height = page.get_size()
        scale = min(DPI / 72, (MAX_PIXELS / max(width * height, 1.0)) ** 0.5)
        return page.render(scale=scale, grayscale=True).to_pil()
    finally:
        page.close()


def read_image_file(
    data: bytes, max_pages: int, on_page: OnPage | None = None, timeout_s: float | None = None
) -> OcrResult:
    """The frames of the image file ``data`` read by OCR as pages (at most ``max_pages``,
    each within ``timeout_s``); ``UnreadableImage`` when it cannot be decoded or is past
    ``MAX_IMAGE_PIXELS``; ``ocr.OcrUnavailable`` when OCR is not installed."""
    from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

    engine = ocr.engine_name()
    if engine is None:
        raise ocr.OcrUnavailable(ocr.missing_note())
    try:
        with warnings.catch_warnings():  # (its size is checked below, before it is decoded)
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
        frames = getattr(image, "n_frames", 1)
    except Image.DecompressionBombError:
        raise _too_large() from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as exc:
        raise UnreadableImage(f"is a damaged image ({type(exc).__name__})") from None
    numbers = list(range(1, frames + 1))
    result = OcrResult(engine=engine, untried=numbers[max_pages:])
    if result.untried:
        result.why_untried = _past_bound(max_pages)
    try:
        for done, frame in enumerate(ImageSequence.Iterator(image), 1):
            if done > max_pages:
                break
            width, height = frame.size
            if width * height > MAX_IMAGE_PIXELS:
                raise _too_large(width, height)
            picture = ImageOps.exif_transpose(frame.convert("RGB"))
            if width * height > MAX_PIXELS:
                fits = (MAX_PIXELS / (width * height)) ** 0.5
                picture = picture.resize((max(int(width * fits), 1), max(int(height * fits), 1)))
            try:
                result.texts[done] = _read(picture, timeout_s)
            except ocr.OcrTimedOut as exc:
                pending = range(done, min(frames, max_pages) + 1)
                if result.timed_out_on(pending, exc):
                    break
            if on_page is not None:
                on_page(done, min(frames, max_pages))
    except UnreadableImage:
        raise
    except Image.DecompressionBombError:
        raise _too_large() from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise UnreadableImage(f"is a damaged image ({type(exc).__name__})") from None
    result.untried.sort()
    return result


def _too_large(width: int = 0, height: int = 0) -> UnreadableImage:
    size = f"of {width:,} x {height:,} pixels" if width else "too large to decode"
    return UnreadableImage(
        f"is an image {size}, past the {MAX_IMAGE_PIXELS // 1_000_000} million pixels OCR "
        "reads; scale it down first"
    )


def _read(picture: Any, timeout_s: float | None = None) -> str:
    return ocr.read_picture(picture, timeout_s=timeout_s).strip()


def _out_of_time(timeout_s: float, engine_busy: bool) -> str:
    """Why a page went unread for want of time, and what to do."""
    if engine_busy:
        said = "OCR stopped: it was still reading a page past its time limit"
    else:
        said = f"a page was not read in {timeout_s:g} s"
    return f"{said} (RALPH_OCR_PAGE_TIMEOUT_S raises the limit)"


def _past_bound(max_pages: int) -> str:
    return (
        f"past the {counted(max_pages, 'page')} a document OCR reads (RALPH_OCR_MAX_PAGES "
        "raises the bound)"
    )
