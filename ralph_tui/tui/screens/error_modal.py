"""The one place the app shows an error: a modal with the error's title, message and hint.

Every error is shown as a ``RalphError`` (anything else is turned into one first), so an
error looks the same wherever it came from. Action buttons beside Close let the user act
on it; the screen that showed the error runs the chosen one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ralph_tui.errors import RalphError, as_ralph_error


@dataclass(frozen=True)
class ErrorAction:
    """A button the error modal offers: ``action`` names the Textual action it runs."""

    action: str
    label: str

    @property
    def button_id(self) -> str:
        return self.action.replace("_", "-")


class ErrorModal(ModalScreen[ErrorAction | None]):
    """Shows ``error``; dismissed with the action chosen, or ``None`` for Close."""

    DEFAULT_CSS = """
    ErrorModal { align: center middle; }
    ErrorModal > Vertical {
        width: 80; max-width: 90%; height: auto; max-height: 80%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ErrorModal #error-title { text-style: bold; color: $text-error; }
    ErrorModal #error-where { color: $text-muted; }
    ErrorModal VerticalScroll { height: auto; max-height: 20; margin: 1 0; }
    ErrorModal #error-hint { margin-top: 1; color: $text-warning; }
    ErrorModal #error-buttons { height: auto; }
    ErrorModal Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", id="error.close")]

    def __init__(
        self, error: RalphError, actions: Sequence[ErrorAction] = (), where: str | None = None
    ) -> None:
        super().__init__()
        self.error = error
        self.actions = {action.button_id: action for action in actions}
        self.where = where

    @property
    def message(self) -> str:
        return str(self.error)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.error.title, id="error-title")
            if self.where:
                yield Label(f"in: {self.where}", id="error-where")
            with VerticalScroll():
                yield Static(self.message, id="error-message", markup=False)
                if self.error.hint:
                    yield Static(self.error.hint, id="error-hint", markup=False)
            with Horizontal(id="error-buttons"):
                for button_id, action in self.actions.items():
                    yield Button(action.label, id=button_id, variant="primary")
                yield Button("Close", id="close", variant="default")

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(self.actions.get(event.button.id or ""))

    def action_close(self) -> None:
        self.dismiss(None)


def show_error(
    app: App[Any],
    error: BaseException,
    actions: Sequence[ErrorAction] = (),
    on_action: Callable[[ErrorAction], Awaitable[object]] | None = None,
    where: str | None = None,
) -> None:
    """Show ``error`` in the error modal; ``on_action`` gets the action chosen, if any.

    ``where`` names what was going on (a background task) when the error came. While an
    error modal is already open, a further error becomes a notification rather than a
    stack of modals.
    """
    shown = as_ralph_error(error)
    if isinstance(app.screen, ErrorModal):
        app.notify(shown.one_line(), title=shown.title, severity="error", timeout=10)
        return

    async def chosen(action: ErrorAction | None) -> None:
        if action is not None and on_action is not None:
            await on_action(action)

    app.push_screen(ErrorModal(shown, actions, where), chosen)
