"""Helpers that look at sandbox processes from the outside, through /proc."""

from __future__ import annotations

import os

from ralph_tui.sandbox.process import children_of


def process_state(pid: int) -> str | None:
    """The one-letter state of ``pid`` (``R``, ``S``, ``Z``...), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()[0].decode()


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    pending = [pid]
    while pending:
        for child in children_of(pending.pop()):
            found.append(child)
            pending.append(child)
    return found


def zombie_children() -> list[int]:
    """This process's children that exited and were never reaped."""
    return [pid for pid in children_of(os.getpid()) if process_state(pid) == "Z"]


def running(pids: list[int]) -> list[int]:
    """The pids in ``pids`` that still exist and are not zombies."""
    return [pid for pid in pids if process_state(pid) not in (None, "Z")]
