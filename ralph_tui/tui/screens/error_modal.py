"""The one place errors from workers are shown: a modal with a title and the message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ErrorModal(ModalScreen[str | None]):
    """Shows an error; optional extra buttons let the user act on it (their id is returned)."""

    DEFAULT_CSS = """
    ErrorModal { align: center middle; }
    ErrorModal > Vertical {
        width: 80; max-width: 90%; height: auto; max-height: 80%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ErrorModal #error-title { text-style: bold; color: $text-error; }
    ErrorModal VerticalScroll { height: auto; max-height: 20; margin: 1 0; }
    ErrorModal #error-buttons { height: auto; }
    ErrorModal Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", id="error.close")]

    def __init__(self, title: str, message: str, actions: dict[str, str] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.actions = actions or {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="error-title")
            with VerticalScroll():
                yield Static(self.message, id="error-message", markup=False)
            with Horizontal(id="error-buttons"):
                for action_id, label in self.actions.items():
                    yield Button(label, id=action_id, variant="primary")
                yield Button("Close", id="close", variant="default")

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None if event.button.id == "close" else event.button.id)

    def action_close(self) -> None:
        self.dismiss(None)


def show_error(
    app: App[Any],
    title: str,
    message: str,
    actions: dict[str, str] | None = None,
    on_action: Callable[[str], None] | None = None,
) -> None:
    """Show one error modal; ``on_action`` gets the id of an action button that was pressed.

    While an error modal is already open, a further error becomes a notification
    rather than a stack of modals.
    """
    if isinstance(app.screen, ErrorModal):
        app.notify(f"{title}: {message}", severity="error", timeout=10)
        return

    def chosen(action: str | None) -> None:
        if action is not None and on_action is not None:
            on_action(action)

    app.push_screen(ErrorModal(title, message, actions), chosen)
