"""The episode log (``episodes.jsonl``): one JSON line per task-mode iteration.

An episode records what an iteration saw and produced: ``task``, ``brief``, ``output``,
``memoryUpdate``, ``validation``, ``iteration`` and ``timestamp``. Compaction summarizes the
episodes into the memory file and then rotates the log: the current file is renamed to the
next free ``episodes-<n>.jsonl`` archive and a fresh log starts.

Appends are whole lines (one ``O_APPEND`` write each); a line torn by a crash is skipped
when reading. The log lives in a session folder, which may come from someone else: it is
read through the bounded JSON reader, a log past ``MAX_LOG_BYTES`` is refused and a line
past its bounds skipped like a torn one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Any

from ralph_tui.atomic import append_line
from ralph_tui.json_input import JsonRefused, parse_json
from ralph_tui.memory.context_file import timestamp

EPISODES_FILE = "episodes.jsonl"
MAX_LOG_BYTES = 64 * 2**20
"""The largest episode log read (compaction rotates it every few episodes: ours stay small)."""
_ARCHIVE = re.compile(r"^episodes-(\d+)\.jsonl$")


class EpisodeStore:
    """Append-only episode log in ``directory``, with rotation into numbered archives."""

    def __init__(self, directory: str | PathLike[str]) -> None:
        self.directory = Path(directory)
        self.path = self.directory / EPISODES_FILE

    def append(self, episode: Mapping[str, Any], now: datetime | None = None) -> dict[str, Any]:
        """Write one episode as one line; a missing ``timestamp`` is filled in. Returns it."""
        record = dict(episode)
        record.setdefault("timestamp", timestamp(now))
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False, default=str)
        append_line(self.path, line, private=False, durable=True)
        return record

    def load(self) -> list[dict[str, Any]]:
        """Every readable episode of the current log, oldest first; ``JsonRefused`` for a
        log past ``MAX_LOG_BYTES``."""
        try:
            size = self.path.stat().st_size
            if size > MAX_LOG_BYTES:
                raise JsonRefused(
                    f"{self.path}: {size:,} bytes, past the {MAX_LOG_BYTES:,} bytes an episode "
                    "log may hold"
                )
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        episodes = []
        for line in lines:
            try:
                record = parse_json(line, str(self.path))
            except JsonRefused:
                continue  # a line torn by a crash, or past the bounds
            if isinstance(record, dict):
                episodes.append(record)
        return episodes

    def count(self) -> int:
        """How many episodes the current log holds."""
        return len(self.load())

    def _numbered_archives(self) -> list[tuple[int, Path]]:
        numbered = []
        for path in self.directory.glob("episodes-*.jsonl"):
            match = _ARCHIVE.match(path.name)
            if match:
                numbered.append((int(match.group(1)), path))
        return sorted(numbered)

    def archives(self) -> list[Path]:
        """The rotated logs, oldest first."""
        return [path for _, path in self._numbered_archives()]

    def rotate(self) -> Path | None:
        """Archive the current log as ``episodes-<n>.jsonl`` and start afresh.

        Returns the archive's path, or ``None`` when there was no log to rotate.
        """
        if not self.path.exists():
            return None
        numbered = self._numbered_archives()
        number = numbered[-1][0] + 1 if numbered else 1
        archive = self.directory / f"episodes-{number}.jsonl"
        os.rename(self.path, archive)
        return archive
