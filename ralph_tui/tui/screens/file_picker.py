"""Pick a document from the file system with a directory tree."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Label

from ralph_tui.tui.core.formatting import shown_path


class FilePicker(ModalScreen[Path | None]):
    """A directory tree rooted at ``start``; dismisses with the chosen file (or ``None``)."""

    DEFAULT_CSS = """
    FilePicker { align: center middle; }
    FilePicker > Vertical {
        width: 80%; height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    FilePicker Label { color: $text-muted; }
    FilePicker DirectoryTree { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_picker", "Close", id="picker.close"),
        Binding("backspace", "go_up", "Parent folder", id="picker.up"),
    ]

    def __init__(self, start: Path) -> None:
        super().__init__()
        self.start = start if start.is_dir() else Path.cwd()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(_title(self.start))
            yield DirectoryTree(self.start)

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(event.path)

    def action_go_up(self) -> None:
        tree = self.query_one(DirectoryTree)
        parent = Path(tree.path).resolve().parent
        tree.path = parent
        self.query_one(Label).update(_title(parent))

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)


def _title(folder: Path) -> str:
    return (
        f"Choose a document in {shown_path(folder)} "
        "(enter opens; backspace: parent folder; escape closes)"
    )
