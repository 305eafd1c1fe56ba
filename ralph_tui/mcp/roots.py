"""The folders a server's clients may read documents from, and the check every path given
to a tool goes through. The path or glob given is checked here; every file it leads to is
checked again where it is opened (``within=``: see ``ralph_tui.documents.confine``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.documents import Confinement, InputError


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

    @property
    def confinement(self) -> Confinement:
        """The roots as the confinement of every file a call's documents lead to."""
        return Confinement(self.folders)

    def check(self, given: str) -> Path:
        """``given`` (a file, folder or glob) resolved, symbolic links followed;
        ``InputError`` when it lies outside every root."""
        path = Path(given).expanduser()
        resolved = (path if path.is_absolute() else self.folders[0] / path).resolve()
        if not self.confinement.admits(resolved):
            raise InputError(
                f"{given} is outside the folders this server may read "
                f"({', '.join(str(folder) for folder in self.folders)}; see ralph-tui mcp --root)"
            )
        return resolved

    def check_all(self, given: Sequence[str]) -> list[Path]:
        if not given:
            raise InputError("no paths: give at least one file, folder or glob")
        return [self.check(path) for path in given]
