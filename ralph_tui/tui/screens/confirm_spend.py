"""Asked before starting a run whose worst case passes its cost or token cap: the figures,
and Start or Cancel."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ralph_tui.estimates import RunEstimate
from ralph_tui.tui.core.estimate_text import confirmation_text


class ConfirmSpend(ModalScreen[bool]):
    """Dismissed with ``True`` to start the run, ``False`` to leave it."""

    DEFAULT_CSS = """
    ConfirmSpend { align: center middle; }
    ConfirmSpend > Vertical {
        width: 76; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmSpend #confirm-title { text-style: bold; color: $text-warning; }
    ConfirmSpend #confirm-figures { margin: 1 0; }
    ConfirmSpend #confirm-buttons { height: auto; }
    ConfirmSpend Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "Start", id="confirm.start"),
        Binding("escape,c", "cancel", "Cancel", id="confirm.cancel"),
    ]

    def __init__(self, estimate: RunEstimate) -> None:
        super().__init__()
        self.estimate = estimate

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("The worst case of this run passes its cap", id="confirm-title")
            yield Static(confirmation_text(self.estimate), id="confirm-figures", markup=False)
            yield Static(
                "The cap stops the run where it says; start it anyway?", id="confirm-question"
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Start (s)", id="start", variant="warning")
                yield Button("Cancel (esc)", id="cancel", variant="default")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "start")

    def action_start(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
