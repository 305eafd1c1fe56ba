"""The folders a server's clients may read documents from, and the check every path given
to a tool goes through."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.documents import InputError


@dataclass(frozen=True)
class Roots:
    """The folders (resolved) that the server was started with; a relative path is taken
    from the first."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, folders: Sequence[Path]) -> Roots:
        """``InputError`` for a root that is not a folder, before the server starts."""
        resolved = []
        for folder in folders:
            path = folder.expanduser().resolve()
            if not path.is_dir():
                raise InputError(f"--root {folder}: not a folder")
            resolved.append(path)
        if not resolved:
            raise InputError("no --root: give at least one folder")
        return cls(tuple(dict.fromkeys(resolved)))

    def check(self, given: str) -> Path:
        """``given`` (a file, folder or glob) resolved, symbolic links followed;
        ``InputError`` when it lies outside every root."""
        path = Path(given).expanduser()
        resolved = (path if path.is_absolute() else self.folders[0] / path).resolve()
        if not any(resolved.is_relative_to(folder) for folder in self.folders):
            raise InputError(
                f"{given} is outside the folders this server may read "
                f"({', '.join(str(folder) for folder in self.folders)}; see ralph-tui mcp --root)"
            )
        return resolved

    def check_all(self, given: Sequence[str]) -> list[Path]:
        if not given:
            raise InputError("no paths: give at least one file, folder or glob")
        return [self.check(path) for path in given]
