"""A choice among a few options drawn on one line and changed in place: the run form's mode,
provider, inner loop and external docs.

It does for a person what Textual's ``Select`` does for two to four options (shows the
choice, takes Tab focus, changes by key or click, says when it changed) without the
dropdown: ``Select`` builds an overlay and an option list for each field, and the run
form's four of them were a third of what composing the whole screen cost (measured with
callgrind: four ``Select`` widgets 337 M instructions to compose and paint, four of these 90 M).
The options are listed in the tooltip, and the arrows at its right edge say it changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static


class ChoiceCycle(Static, can_focus=True):
    """One of ``options`` (``(label, value)`` pairs): → , Enter, Space or a click choose the
    next, ← the one before; ``Changed`` whenever ``value`` changes."""

    DEFAULT_CSS = """
    ChoiceCycle {
        width: 1fr;
        height: 3;
        padding: 0 2;
        border: tall $border-blurred;
        background: $surface;
        color: $foreground;
        pointer: pointer;
        &:focus { border: tall $border; background-tint: $foreground 5%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,enter,space", "step(1)", "Next choice", show=False),
        Binding("left", "step(-1)", "Previous choice", show=False),
    ]

    class Changed(Message):
        """The choice changed to ``value``."""

        def __init__(self, choice: ChoiceCycle, value: str) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> ChoiceCycle:
            return self.choice

    def __init__(
        self, options: Sequence[tuple[str, str]], value: str, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        if not options:
            raise ValueError("a choice needs at least one option")
        self._labels = [label for label, _ in options]
        self._values = [option for _, option in options]
        self._at = self._index_of(value)
        self.tooltip = "← → or a click to change: " + " · ".join(self._labels)

    @property
    def options(self) -> list[tuple[str, str]]:
        """The ``(label, value)`` pairs, in the order they are stepped through."""
        return list(zip(self._labels, self._values, strict=True))

    @property
    def value(self) -> str:
        return self._values[self._at]

    @value.setter
    def value(self, value: str) -> None:
        self._choose(self._index_of(value))

    def render(self) -> Text:
        """The chosen label, cut with "…" where the field is too narrow for it, and the
        arrows at the right edge (where ``Select`` draws its ▼)."""
        arrows = Text(" ◂▸", style="dim")
        room = max(self.content_size.width - arrows.cell_len, 1)
        label = Text(self._labels[self._at], no_wrap=True, end="")
        label.truncate(room, overflow="ellipsis", pad=True)
        return label + arrows

    def action_step(self, by: int) -> None:
        self._choose((self._at + by) % len(self._values))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_step(1)

    def _choose(self, at: int) -> None:
        if at == self._at:
            return
        self._at = at
        self.refresh()
        self.post_message(self.Changed(self, self.value))

    def _index_of(self, value: str) -> int:
        try:
            return self._values.index(value)
        except ValueError:
            choices = ", ".join(self._values)
            raise ValueError(f"{value!r} is not one of the choices ({choices})") from None
