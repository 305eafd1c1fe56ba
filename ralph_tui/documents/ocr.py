"""Text read from a picture of a page by OCR, offline on the CPU: RapidOCR (PaddleOCR's
PP-OCR detection and recognition models in ONNX, shipped inside its wheel, run by
onnxruntime), an optional part of ralph-tui (``pip install 'ralph-tui[ocr]'``).

Why this engine: it installs from PyPI with its models (nothing fetched at run time, so a
fresh machine that installs the project reads scans), it is maintained, and on a rendered
10-K page it read tables with under 4 % of words wrong where Tesseract 5 lost the rows'
order. The text-direction classifier is off: on upright lines it turned some of them
upside down (the recognizer then read noise). A page scanned sideways or upside down is
told by its reading instead (its text boxes taller than wide, or read with low confidence)
and read again turned: such a page costs two or three readings, an upright one one.

What comes out is laid out as a person reads the page: the engine's text boxes grouped
into lines by where they stand, left to right, a wide gap between two boxes of a line (a
table's columns) as a tab, as a PDF table's row is; a blank line where the page leaves
one.

A page gets at most a time limit (``read_picture``'s ``timeout_s``): the engine runs in a
worker thread, and a page not read in time is given up (``OcrTimedOut``). The engine cannot
be stopped mid-page, so that call runs on to its end (its picture is bounded) while holding
the engine: the next page waits for it within its own limit, so never two pages are read at
once, and the process waits for it before it exits. (The engine loads its models on its
first page, about a second: that page's time includes it.)
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

ENGINE_PACKAGE = "rapidocr"
RUNTIME_PACKAGE = "onnxruntime"
INSTALL_STEP = "pip install 'ralph-tui[ocr]'"
"""What makes OCR available: said wherever a page goes unread for want of it."""
CELL_GAP = 2.0
"""A gap between two boxes of a line wider than this many text heights is a cell break."""
PARAGRAPH_GAP = 1.2
"""Space between two lines taller than this many text heights is a blank line."""


_ENGINE_LOCK = threading.Lock()


class OcrUnavailable(RuntimeError):
    """The OCR engine is not installed (or cannot start): the message says why."""


class OcrTimedOut(RuntimeError):
    """A page was not read within its time limit; ``engine_busy``: the engine was still
    reading an earlier page that had run past its own."""

    def __init__(self, timeout_s: float, engine_busy: bool) -> None:
        super().__init__(f"OCR did not read a page in {timeout_s:g} s")
        self.timeout_s = timeout_s
        self.engine_busy = engine_busy


@dataclass(frozen=True)
class Box:
    """A piece of text the engine read, with where it stands on the picture."""

    text: str
    left: float
    top: float
    right: float
    bottom: float

    @property
    def height(self) -> float:
        return max(self.bottom - self.top, 1.0)

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


def engine_name() -> str | None:
    """``rapidocr 3.10.0`` when the engine and its runtime are installed, else ``None``
    (looked up without importing either: it costs nothing where no page needs OCR)."""
    for package in (ENGINE_PACKAGE, RUNTIME_PACKAGE):
        try:
            if importlib.util.find_spec(package) is None:
                return None
        except (ImportError, ValueError):
            return None
    try:
        return f"{ENGINE_PACKAGE} {version(ENGINE_PACKAGE)}"
    except PackageNotFoundError:
        return None


def missing_note() -> str:
    """Why a page without a text layer was not read, and what to do."""
    return f"OCR is not installed ({INSTALL_STEP} reads such pages)"


def read_picture(image: Any, timeout_s: float | None = None) -> str:
    """The text of ``image`` (a Pillow image of a page), laid out in lines; empty when it
    shows none. A page scanned sideways or upside down is turned and read again (see
    ``_turns``). ``OcrUnavailable`` when the engine is missing or cannot start;
    ``OcrTimedOut`` when it is not read within ``timeout_s`` seconds (``None``: no limit),
    every reading of the page together."""
    engine = _engine()
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    read = _Reading.of(_bounded(engine, image, timeout_s))
    best = read
    for turn in _turns(read):
        left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        try:
            turned = _Reading.of(_bounded(engine, image.rotate(turn, expand=True), left))
        except OcrTimedOut as exc:
            raise OcrTimedOut(timeout_s or 0.0, exc.engine_busy) from None
        best = max(best, turned, key=_Reading.rank)
        if turned.upright and turned.score >= GOOD_SCORE:
            break
    return lay_out(best.boxes)


GOOD_SCORE = 0.85
"""A reading whose mean confidence is below this is taken for a page read the wrong way up
(an upright page of print reads at 0.95 or more; the same page upside down at about 0.7)."""
SIDEWAYS_SHARE = 0.6
"""A page whose text boxes are taller than wide in this share or more is set sideways."""


@dataclass(frozen=True)
class _Reading:
    """What the engine read of a picture: its boxes, their mean confidence, and whether its
    lines run across the picture (``upright``) or down it."""

    boxes: list[Box]
    score: float
    upright: bool

    @classmethod
    def of(cls, result: Any) -> _Reading:
        found = result.boxes if result.boxes is not None else []
        boxes = [
            _box(points, text)
            for points, text in zip(found, result.txts or [], strict=True)
            if str(text).strip()
        ]
        scores = list(getattr(result, "scores", None) or [])  # (an engine without: 1)
        words = [box for box in boxes if len(box.text.strip()) >= 4]
        tall = sum(box.bottom - box.top > box.right - box.left for box in words)
        sideways = bool(words) and tall >= SIDEWAYS_SHARE * len(words)
        return cls(boxes, statistics.fmean(scores) if scores else 1.0, not sideways)

    def rank(self) -> tuple[bool, float]:
        return self.upright, self.score


def _turns(read: _Reading) -> tuple[int, ...]:
    """The turns (degrees anticlockwise) to read a page again at, in order, when ``read``
    says it was not read upright: a page set sideways is turned a quarter, first the way
    its confidence points to (the engine turns a tall piece of text a quarter one way
    before reading it: when that was the right way, it read the text well, and only the
    lines are out of place); a page read poorly the right way round is turned over."""
    if not read.upright:
        return (90, -90) if read.score >= GOOD_SCORE else (-90, 90)
    if read.boxes and read.score < GOOD_SCORE:
        return (180,)
    return ()


def _bounded(engine: Any, image: Any, timeout_s: float | None) -> Any:
    """``engine(image)`` in a worker thread, given up after ``timeout_s`` (waiting for the
    engine included). The engine sets its options on each call: one call at a time, under
    ``_ENGINE_LOCK``, which the worker releases when its call ends, also one given up."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    if not _ENGINE_LOCK.acquire(timeout=-1 if timeout_s is None else timeout_s):
        raise OcrTimedOut(timeout_s or 0.0, engine_busy=True)
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = engine(image)
        except BaseException as exc:  # handed to the caller, whatever it is
            outcome["error"] = exc
        finally:
            _ENGINE_LOCK.release()
            done.set()

    # Not a daemon: a process that ends while the engine is inside onnxruntime is aborted
    # by the C++ runtime, so it waits for a page given up to end (its picture is bounded).
    threading.Thread(target=work, name="ocr-page").start()
    left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
    if not done.wait(left):
        raise OcrTimedOut(timeout_s or 0.0, engine_busy=False)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def lay_out(boxes: Sequence[Box]) -> str:
    """``boxes`` as lines of text: each line the boxes whose middles lie within its height,
    left to right, a wide gap as a tab; a blank line for a wide space between lines."""
    lines: list[list[Box]] = []
    for box in sorted(boxes, key=lambda box: (box.middle, box.left)):
        line = lines[-1] if lines else None
        if line is not None and _same_line(line, box):
            line.append(box)
        else:
            lines.append([box])
    if not lines:
        return ""
    height = statistics.median(box.height for line in lines for box in line)
    out: list[str] = []
    previous_bottom: float | None = None
    for line in lines:
        top = min(box.top for box in line)
        if previous_bottom is not None and top - previous_bottom > PARAGRAPH_GAP * height:
            out.append("")
        out.append(_line_text(sorted(line, key=lambda box: box.left), height))
        previous_bottom = max(box.bottom for box in line)
    return "\n".join(out)


def _same_line(line: list[Box], box: Box) -> bool:
    top = min(b.top for b in line)
    bottom = max(b.bottom for b in line)
    return top <= box.middle <= bottom


def _line_text(line: list[Box], height: float) -> str:
    parts = [" ".join(line[0].text.split())]
    for before, box in itertools.pairwise(line):
        gap = box.left - before.right
        parts.append("\t" if gap > CELL_GAP * height else " ")
        parts.append(" ".join(box.text.split()))
    return "".join(parts)


def _box(points: Any, text: str) -> Box:
    xs = [float(point[0]) for point in points]
    ys = [float(point[1]) for point in points]
    return Box(str(text), min(xs), min(ys), max(xs), max(ys))


@cache
def _engine() -> Any:
    """The engine, started once a process (loading its models takes a few seconds)."""
    if engine_name() is None:
        raise OcrUnavailable(missing_note())
    try:
        from rapidocr import RapidOCR
    except ImportError as exc:
        raise OcrUnavailable(f"the OCR engine cannot be loaded ({exc}; {INSTALL_STEP})") from None
    logging.getLogger("RapidOCR").setLevel(logging.ERROR)
    try:
        return RapidOCR(params={"Global.log_level": "error", "Global.use_cls": False})
    except Exception as exc:  # its models missing or damaged: it would try to download them
        raise OcrUnavailable(
            f"the OCR engine cannot start ({type(exc).__name__}: {exc})".splitlines()[0][:200]
        ) from None
