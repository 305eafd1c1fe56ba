"""Converted text kept under the out dir, so a 500-page PDF is converted once.

An entry is keyed by the file's SHA-256 and the converter's name and version: a changed file,
or a new converter, converts again. A damaged entry is converted again and rewritten, with a
notice. Plain text is not cached: decoding it is as fast as reading an entry would be.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from ralph_tui.documents.convert import Extracted

CACHE_VERSION = 1


class ExtractionCache:
    """``get``/``put`` of converted documents in ``folder`` (created on first write)."""

    def __init__(self, folder: Path, on_notice: Callable[[str], None] | None = None) -> None:
        self.folder = folder
        self.on_notice = on_notice

    def entry(self, sha256: str, converter: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9.]+", "-", converter).strip("-")
        return self.folder / f"{sha256}-{slug}.json"

    def get(self, sha256: str, converter: str, name: str) -> Extracted | None:
        """The cached conversion, or ``None`` (absent, or damaged: then it is removed)."""
        path = self.entry(sha256, converter)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data["version"] != CACHE_VERSION or data["converter"] != converter:
                raise ValueError("another version")
            return Extracted(
                text=data["text"],
                converter=converter,
                pages=data["pages"],
                empty_pages=list(data["emptyPages"]),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            if self.on_notice is not None:
                self.on_notice(f"the cached text of {name} was damaged: converting it again")
            path.unlink(missing_ok=True)
            return None

    def put(self, sha256: str, extracted: Extracted) -> None:
        """Store a conversion; a cache that cannot be written is skipped, not an error."""
        payload = {
            "version": CACHE_VERSION,
            "converter": extracted.converter,
            "text": extracted.text,
            "pages": extracted.pages,
            "emptyPages": extracted.empty_pages,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, ensure_ascii=False)
            os.replace(temp, self.entry(sha256, extracted.converter))
        except OSError:
            return
