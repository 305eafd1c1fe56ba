"""A small button drawn as its label alone: the run form's "…" beside the document field.

It looks and answers as Textual's ``Button`` does with its borders off (the surface colour,
bold label, darker on hover, the focus style; a click or Enter presses it), without the
variants, the press animation and their stylesheet: ``Button``'s is seven thousand
characters, and parsing it was the first frame's largest single stylesheet, for one "…".
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static


class PlainButton(Static, can_focus=True):
    """A label that is a button: ``Pressed`` on a click or on Enter while focused."""

    DEFAULT_CSS = """
    PlainButton {
        width: auto;
        content-align: center middle;
        text-style: bold;
        color: $button-foreground;
        background: $surface;
        pointer: pointer;
        &:hover { background: $surface-darken-1; }
        &:focus { text-style: $button-focus-text-style; background-tint: $foreground 5%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "press", "Press button", show=False)]

    class Pressed(Message):
        """The button was pressed."""

        def __init__(self, button: PlainButton) -> None:
            super().__init__()
            self.button = button

        @property
        def control(self) -> PlainButton:
            return self.button

    def __init__(self, label: str, *, id: str | None = None, tooltip: str | None = None) -> None:
        super().__init__(label, id=id)
        self.tooltip = tooltip

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_press()

    def action_press(self) -> None:
        self.post_message(self.Pressed(self))
