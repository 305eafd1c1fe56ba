"""An input for a path that shows the path's end while it is not being edited: a long
path's file name is what tells documents apart, and an input shows the start of a value
set from code."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class PathInput(Input):
    """``Input`` that keeps the end of its value in sight when it is set from code or the
    field is resized, unless someone is typing in it."""

    def show_end(self) -> None:
        """Scroll to the end of the value once the field knows its size."""
        if not self.has_focus:
            self.call_after_refresh(self._scroll_to_end)

    def _scroll_to_end(self) -> None:
        # Set, not ``scroll_to``: before the first frame a scroll request is dropped.
        self.scroll_x = self.max_scroll_x

    def on_resize(self, _event: events.Resize) -> None:
        self.show_end()

    def on_show(self, _event: events.Show) -> None:
        self.show_end()
