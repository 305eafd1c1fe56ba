"""Checks of the settings that name places ralph-tui writes to (the out dir, the memory
file, the external-docs cache), made before anything runs, so a bad one is bad input and
not a crash halfway through."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ralph_tui.config.settings import Settings


def path_problems(settings: Settings) -> dict[str, str]:
    """What is wrong with each place ``settings`` would write to, by setting name."""
    problems: dict[str, str] = {}
    folders = {"out_dir": settings.out_dir, "external_cache_dir": settings.external_cache_dir}
    for name, folder in folders.items():
        problem = folder_problem(folder) if folder is not None else None
        if problem:
            problems[name] = problem
    mem_file = settings.mem_file
    if mem_file is not None:
        if mem_file.is_dir():
            problems["mem_file"] = f"{mem_file} is a folder: give a file (it is made if missing)"
        elif problem := folder_problem(mem_file.parent):
            problems["mem_file"] = problem
    return problems


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be written to (or made), or ``None`` if it can. Nothing is
    left behind: the check writes a temporary file and removes it."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not existing.is_dir():
        return f"{folder} cannot be made: {existing} is a file"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return f"{folder} cannot be written to ({exc.strerror or exc})"
    return None
