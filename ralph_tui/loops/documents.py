"""Reading the user's document, with a clear error for each way it can be unusable."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.documents import InputError

BINARY_SNIFF_BYTES = 8192


__all__ = ["InputError", "read_document"]


def read_document(path: Path) -> str:
    """The document's text; ``InputError`` if it is missing, a directory, empty or binary."""
    if not path.exists():
        raise InputError(f"document not found: {path} (check the --doc path)")
    if path.is_dir():
        raise InputError(f"{path} is a directory: pass a text file with --doc")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not data.strip():
        raise InputError(f"document {path} is empty: nothing to analyse")
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(f"{path} looks like a binary file: pass a text document (UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path} is not UTF-8 text (byte {exc.start} is invalid): convert it to UTF-8"
        ) from None
