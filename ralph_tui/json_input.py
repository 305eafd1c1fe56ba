"""JSON read from disk or from elsewhere, parsed within bounds.

A bundle, a session folder or a suite may come from someone else: its JSON is input like a
user's, so parsing it must not end in a crash (a ``RecursionError`` from deep nesting, an
``OverflowError`` when a 400-digit number reaches SQLite) nor in unbounded work. Every JSON
the product reads back goes through ``parse_json``, which refuses, with one line naming where
it came from, a text too large, nesting too deep, an integer outside 64 bits or a float
outside the doubles.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_tui.errors import UsageError

if TYPE_CHECKING:
    from pydantic import ValidationError

MAX_DEPTH = 64
"""Containers nested deeper than this are refused (our own files nest less than 10 deep)."""
MAX_INT = 2**63 - 1
"""The largest integer taken: SQLite's, so nothing read can overflow the session index."""
MAX_INT_DIGITS = len(str(MAX_INT))
_BIG_NUMBER = rf"[0-9]{{{MAX_INT_DIGITS},}}|[eE][+-]?[0-9]{{3,}}"
"""A number this does not match is within the bounds without being looked at."""
_BIG_NUMBER_TEXT = re.compile(_BIG_NUMBER)
_BIG_NUMBER_BYTES = re.compile(_BIG_NUMBER.encode())
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


class JsonRefused(UsageError):
    """JSON that is malformed or past the bounds of ``parse_json``."""

    title = "Unreadable JSON"


def parse_json(data: str | bytes, where: str, *, max_bytes: int | None = None) -> Any:
    """``data`` parsed; ``JsonRefused`` (naming ``where``) for malformed JSON, more than
    ``max_bytes``, nesting past ``MAX_DEPTH``, or a number past 64-bit integers or doubles."""
    if max_bytes is not None and len(data) > max_bytes:
        raise JsonRefused(
            f"{where}: {len(data):,} bytes, past the {max_bytes:,} bytes such a file may hold"
        )
    try:
        value = _loads(data)
    except RecursionError:
        raise JsonRefused(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise JsonRefused(f"{where}: not valid JSON ({_reason(exc)})") from None
    if _brackets(data) > MAX_DEPTH:
        _check_depth(data, where)
    return value


def _loads(data: str | bytes) -> Any:
    """``json.loads`` with every number checked; the per-number checks, which triple the
    time of a file of numbers, run only where the text holds a number that could need them
    (a long run of digits or a three-digit exponent: the match may be inside a string)."""
    pattern = _BIG_NUMBER_TEXT if isinstance(data, str) else _BIG_NUMBER_BYTES
    if pattern.search(data):  # type: ignore[arg-type]
        return json.loads(
            data, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant
        )
    return json.loads(data, parse_constant=_no_constant)


def _brackets(data: str | bytes) -> int:
    """How many containers the text can open at most: nesting can be no deeper."""
    if isinstance(data, bytes):
        return data.count(b"[") + data.count(b"{")
    return data.count("[") + data.count("{")


def first_problem(exc: ValidationError, whole: str = "") -> str:
    """The first problem a model found in what was parsed, as ``where: what`` (``whole``
    stands for the place when the problem is with the value as a whole)."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or whole
    return f"{where}: {first['msg']}"


def read_json(path: Path, where: str | None = None, *, max_bytes: int | None = None) -> Any:
    """The JSON file at ``path``, parsed by ``parse_json``; ``OSError`` when it cannot be
    read (its size is checked before it is read)."""
    label = where or str(path)
    if max_bytes is not None:
        size = path.stat().st_size
        if size > max_bytes:
            raise JsonRefused(
                f"{label}: {size:,} bytes, past the {max_bytes:,} bytes such a file may hold"
            )
    return parse_json(path.read_bytes(), label, max_bytes=max_bytes)


class _NumberRefused(ValueError):
    pass


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS or abs(int(text)) > MAX_INT:
        raise _NumberRefused(f"the integer {_clip(text)} is past 64 bits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberRefused(f"the number {_clip(text)} is past the range of a double")
    return value


def _no_constant(text: str) -> float:
    """``NaN``, ``Infinity`` and ``-Infinity``: not JSON, though Python's reader takes them."""
    raise _NumberRefused(f"{text} is not a JSON number")


def _check_depth(data: str | bytes, where: str) -> None:
    """The nesting measured on the text of JSON already parsed: strings dropped, the
    brackets kept, then the innermost pairs stripped one level per pass (each pass one
    C-speed ``replace``), at most ``MAX_DEPTH`` passes. Ten times quicker than walking the
    parsed value, and it cannot overflow."""
    raw = data.encode() if isinstance(data, str) else data
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    brackets = brackets.replace(b"{", b"[").replace(b"}", b"]")
    for _level in range(MAX_DEPTH):
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return
    raise JsonRefused(f"{where}: nested deeper than {MAX_DEPTH} levels")


def _reason(exc: Exception) -> str:
    if isinstance(exc, _NumberRefused):
        return str(exc)
    return " ".join(str(exc).split())[:200]


def _clip(text: str, keep: int = 24) -> str:
    return text if len(text) <= keep else f"{text[:keep]}… ({len(text)} characters)"
