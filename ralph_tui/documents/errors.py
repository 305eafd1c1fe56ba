"""The error every part of ralph-tui raises for bad input: nothing was run or written."""

from __future__ import annotations


class InputError(ValueError):
    """Bad usage or input: nothing was run and nothing was written."""
