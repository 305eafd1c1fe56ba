"""A button without ``Button``'s weight: the run form's "…" beside the document field (its
label alone), and its "Start run" and "Use the offline provider" (``primary`` and
``warning``: raised, in the theme's colour).

It looks and answers as Textual's ``Button`` does (the surface or the variant's colour,
bold label, darker on hover, the focus style; a click or Enter presses it), without the
other variants, the press animation and their stylesheet: ``Button``'s is seven thousand
characters, and parsing it was the first frame's largest single stylesheet, for one "…";
the form's two buttons cost the whole screen 77 M instructions as ``Button`` widgets.
"""

from __future__ import annotations

from typing import ClassVar, Literal

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
        &.-primary, &.-warning {
            height: 3;
            line-pad: 1;
            text-align: center;
            color: $button-color-foreground;
        }
        &.-primary {
            background: $primary;
            border-top: tall $primary-lighten-3;
            border-bottom: tall $primary-darken-3;
            &:hover { background: $primary-darken-2; border-top: tall $primary; }
        }
        &.-warning {
            background: $warning;
            border-top: tall $warning-lighten-2;
            border-bottom: tall $warning-darken-3;
            &:hover { background: $warning-darken-2; border-top: tall $warning; }
        }
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

    def __init__(
        self,
        label: str,
        *,
        id: str | None = None,
        tooltip: str | None = None,
        variant: Literal["plain", "primary", "warning"] = "plain",
    ) -> None:
        super().__init__(label, id=id, classes="" if variant == "plain" else f"-{variant}")
        self.tooltip = tooltip

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_press()

    def action_press(self) -> None:
        self.post_message(self.Pressed(self))
