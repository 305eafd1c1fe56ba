"""Session ids and the folders they name under ``<out>/sessions/``.

A session id is ``YYYY-MM-DD/<mode>-<hash8>`` (the date is UTC; ``hash8`` is
the first 8 hex digits of sha256 over mode + query), so the same question
asked in the same mode on the same day lands next to its earlier runs. A
second run of it gets ``-2``, then ``-3``, ... A sub-task's id is its
session's id plus ``/subtask-<id>``.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path

SESSIONS_DIR = "sessions"
SUBTASK_PREFIX = "subtask-"

_ROOT_ID = r"\d{4}-\d{2}-\d{2}/[a-z][a-z0-9_]*-[0-9a-f]{8}(?:-\d+)?"
_SUBTASK_ID = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_SESSION_ID_RE = re.compile(rf"{_ROOT_ID}(?:/{SUBTASK_PREFIX}{_SUBTASK_ID})*")
_MODE_RE = re.compile(r"[a-z][a-z0-9_]*")
_SUBTASK_ID_RE = re.compile(_SUBTASK_ID)


def make_session_id(query: str, mode: str, when: datetime | None = None) -> str:
    """The base id for ``query`` run in ``mode`` on ``when``'s UTC date (default: now)."""
    check_mode(mode)
    moment = datetime.now(UTC) if when is None else when
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    digest = hashlib.sha256((mode + query).encode("utf-8")).hexdigest()[:8]
    return f"{moment:%Y-%m-%d}/{mode}-{digest}"


def allocate_session_dir(
    out_dir: Path | str, query: str, mode: str, when: datetime | None = None
) -> tuple[str, Path]:
    """Create a fresh, empty session folder and return ``(session_id, path)``.

    ``mkdir`` without ``exist_ok`` either creates the folder or fails, so two
    processes racing for the same id can never share a folder: the loser
    moves on to the next ``-N`` suffix.
    """
    base_id = make_session_id(query, mode, when)
    day, name = base_id.split("/")
    day_dir = Path(out_dir) / SESSIONS_DIR / day
    day_dir.mkdir(parents=True, exist_ok=True)
    suffix = 1
    while True:
        candidate = name if suffix == 1 else f"{name}-{suffix}"
        try:
            (day_dir / candidate).mkdir()
        except FileExistsError:
            suffix += 1
            continue
        return f"{day}/{candidate}", day_dir / candidate


def session_dir(out_dir: Path | str, session_id: str) -> Path:
    """The folder of ``session_id`` (root or sub-task); rejects anything that is not an id."""
    check_session_id(session_id)
    return Path(out_dir) / SESSIONS_DIR / session_id


def subtask_session_id(parent_id: str, subtask_id: str) -> str:
    """The id of sub-task ``subtask_id`` of session ``parent_id``."""
    if not _SUBTASK_ID_RE.fullmatch(subtask_id):
        raise ValueError(f"not a valid sub-task id: {subtask_id!r}")
    return f"{parent_id}/{SUBTASK_PREFIX}{subtask_id}"


def root_session_id(session_id: str) -> str:
    """The top-level session a (possibly sub-task) id belongs to."""
    check_session_id(session_id)
    return "/".join(session_id.split("/")[:2])


def is_session_id(text: str) -> bool:
    """Whether ``text`` is a well-formed session id (so it is safe as a path)."""
    return _SESSION_ID_RE.fullmatch(text) is not None


def check_session_id(text: str) -> None:
    if not is_session_id(text):
        raise ValueError(f"not a session id: {text!r}")


def check_mode(mode: str) -> None:
    if not _MODE_RE.fullmatch(mode):
        raise ValueError(f"mode must be a lowercase word, got {mode!r}")
