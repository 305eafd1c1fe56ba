"""Is the process that writes a ``running`` session still alive?

A run whose process was killed never gets to write its final status, so its
``session.json`` says ``running`` forever. Readers use ``effective_status`` to
show such a session as ``crashed``; ``TraceStore.mark_crashed`` records it.
"""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

from ralph_tui.events import RunStatus
from ralph_tui.traces.models import SessionRecord

# /proc start times have clock-tick resolution and btime whole-second resolution.
_START_TIME_SLACK_S = 2.0


def effective_status(record: SessionRecord) -> RunStatus:
    """``record.status``, except ``crashed`` for a running session whose writer is gone."""
    if record.status == "running" and writer_alive(record) is False:
        return "crashed"
    return record.status


def writer_alive(record: SessionRecord) -> bool | None:
    """Whether the session's writer process lives; ``None`` when it ran on another host."""
    if record.host != socket.gethostname():
        return None
    if not pid_alive(record.pid):
        return False
    started = process_start_time(record.pid)
    # The writer existed before its last write; a process started later only
    # reuses the pid of a writer that has died.
    return started is None or started <= record.updated_at + _START_TIME_SLACK_S


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` names a live (not zombie) process on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _proc_state(pid) != "Z"


def process_start_time(pid: int) -> float | None:
    """When ``pid`` started, in Unix seconds, from ``/proc``; ``None`` where unknown."""
    fields = _proc_stat_fields(pid)
    boot = _boot_time()
    if fields is None or boot is None:
        return None
    # Field 22 of /proc/<pid>/stat; ``fields`` starts at field 3 (the state).
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _proc_state(pid: int) -> str | None:
    fields = _proc_stat_fields(pid)
    return None if fields is None else fields[0]


def _proc_stat_fields(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may itself hold spaces or ')'.
    return stat.rsplit(")", 1)[1].split()


@cache
def _boot_time() -> float | None:
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("btime "):
            return float(line.split()[1])
    return None
