"""The error every part of ralph-tui raises for bad input: nothing was run or written."""

from __future__ import annotations

from ralph_tui.errors import UsageError


class InputError(UsageError):
    """Bad usage or input: nothing was run and nothing was written."""

    title = "Bad input"


class NeedsOcr(InputError):
    """A document with no text but what OCR would read, where OCR is not installed."""

    title = "OCR is not installed"
