"""Edit an iteration's constraints (add, remove, reword) before re-running them."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

from ralph_tui.tui.core.constraints_text import edit_in_editor, from_text, to_text


class ConstraintsEditor(ModalScreen[list[str] | None]):
    """A text area with one constraint per line; dismisses with the edited list to re-run."""

    DEFAULT_CSS = """
    ConstraintsEditor { align: center middle; }
    ConstraintsEditor > Vertical {
        width: 90%; height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ConstraintsEditor #editor-title { text-style: bold; }
    ConstraintsEditor #editor-hint { color: $text-muted; }
    ConstraintsEditor TextArea { height: 1fr; }
    ConstraintsEditor Horizontal { height: auto; margin-top: 1; }
    ConstraintsEditor Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+r",
            "rerun",
            "Re-run",
            id="editor.rerun",
            tooltip="Re-run with these constraints as a new session",
            priority=True,
        ),
        Binding(
            "ctrl+e",
            "external_editor",
            "Edit in $EDITOR",
            id="editor.external",
            tooltip="Edit the constraints in $EDITOR",
        ),
        Binding("escape", "cancel", "Cancel", id="editor.cancel"),
    ]

    def __init__(self, title: str, constraints: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.constraints = constraints

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="editor-title")
            yield Label(
                "One constraint per line: add, remove or reword them, then re-run (ctrl+r).",
                id="editor-hint",
            )
            yield TextArea(to_text(self.constraints), id="constraints-text", soft_wrap=True)
            with Horizontal():
                yield Button("Re-run (ctrl+r)", id="rerun", variant="primary")
                yield Button("Edit in $EDITOR (ctrl+e)", id="external")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @property
    def edited(self) -> list[str]:
        return from_text(self.query_one(TextArea).text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"rerun": self.action_rerun, "external": self.action_external_editor}
        actions.get(event.button.id or "", self.action_cancel)()

    def action_rerun(self) -> None:
        self.dismiss(self.edited)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_external_editor(self) -> None:
        area = self.query_one(TextArea)
        try:
            with self.app.suspend():
                edited = edit_in_editor(area.text)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="error")
            return
        if edited is None:
            self.notify("The editor failed; the constraints are unchanged.", severity="warning")
            return
        area.load_text(to_text(from_text(edited)))
