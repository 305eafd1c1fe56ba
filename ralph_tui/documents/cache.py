"""Converted text kept under the out dir, so a 500-page PDF is converted once.

An entry is keyed by the file's SHA-256, the converter's name and version (for a PDF or an
image, also the OCR engine's and its page bound: ``convert.cache_key``) and the cache's own
version (``CACHE_VERSION``, raised when what a conversion gives changes: version 4 reads a
page scanned sideways or upside down the right way up, version 3 says which pages OCR
read, version 2 is the visible text with headings beside it, where version
1 held Markdown marks): a changed file, a new converter or a new way of converting converts
again. So a document OCR read is read again only when its engine changes, and ``verify``
gets the text the same engine read from the same bytes. A damaged entry is converted again
and rewritten, with a notice. Plain text is not cached: decoding it is as fast as reading an
entry would be.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from ralph_tui.atomic import write_atomic
from ralph_tui.documents.convert import Extracted, Heading
from ralph_tui.json_input import read_json

CACHE_VERSION = 4


class ExtractionCache:
    """``get``/``put`` of converted documents in ``folder`` (created on first write)."""

    def __init__(self, folder: Path, on_notice: Callable[[str], None] | None = None) -> None:
        self.folder = folder
        self.on_notice = on_notice

    def entry(self, sha256: str, key: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9.]+", "-", key).strip("-")
        return self.folder / f"{sha256}-{slug}-v{CACHE_VERSION}.json"

    def get(self, sha256: str, key: str, name: str) -> Extracted | None:
        """The conversion cached under ``key`` (``convert.cache_key``), or ``None`` (absent,
        or damaged: then it is removed)."""
        path = self.entry(sha256, key)
        try:
            data = read_json(path)  # a refused file (``JsonRefused``) is a ValueError: a miss
            if data["version"] != CACHE_VERSION or data["key"] != key:
                raise ValueError("another version")
            return Extracted(
                text=data["text"],
                converter=str(data["converter"]),
                pages=data["pages"],
                empty_pages=[int(number) for number in data["emptyPages"]],
                headings=[Heading.from_json(heading) for heading in data["headings"]],
                ocr_pages=[int(number) for number in data["ocrPages"]],
                unread_pages=[int(number) for number in data["unreadPages"]],
                unread_why=str(data["unreadWhy"]),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            if self.on_notice is not None:
                self.on_notice(f"the cached text of {name} was damaged: converting it again")
            path.unlink(missing_ok=True)
            return None

    def put(self, sha256: str, key: str, extracted: Extracted) -> None:
        """Store a conversion under ``key``; a cache that cannot be written is skipped, not
        an error."""
        payload = {
            "version": CACHE_VERSION,
            "key": key,
            "converter": extracted.converter,
            "text": extracted.text,
            "pages": extracted.pages,
            "emptyPages": extracted.empty_pages,
            "headings": [heading.to_json() for heading in extracted.headings],
            "ocrPages": extracted.ocr_pages,
            "unreadPages": extracted.unread_pages,
            "unreadWhy": extracted.unread_why,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            text = json.dumps(payload, ensure_ascii=False)
            write_atomic(self.entry(sha256, key), text)
        except OSError:
            return
