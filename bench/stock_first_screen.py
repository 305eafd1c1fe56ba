"""The run screen's first paint built from stock Textual widgets alone, no project code: the
floor ``bench/start.py`` measures beside the hello-world app.

The same kinds and numbers of widgets as the run screen before a run: the form (labels,
four selects, two text areas, four inputs, a checkbox, three buttons) in a scrolling column,
the status line, the sandbox, coverage, output and validation panes, the tabbed pane with
its five tabs, and the footer (whose ``f1 Help`` is the marker the bench waits for). Like
the app, it writes the file ``RALPH_TUI_SCREEN_WHOLE_FILE`` names once the screen is
whole (composed and painted), so both are timed to that moment the same way.
"""

from __future__ import annotations

import os
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    Checkbox,
    Footer,
    Input,
    Label,
    Log,
    OptionList,
    Select,
    Static,
    TabbedContent,
    TabPane,
    TextArea,
)

CHOICES = [("first", "first"), ("second", "second")]
TABS = ("Constraints", "Memory", "Retrieval", "Context", "Log")


class StockFirstScreen(App[None]):
    CSS = """
    #form { width: 38; }
    .pane { border: round $foreground 25%; height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "noop", "Help"),
        Binding("ctrl+r", "noop", "Start"),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="form"):
                yield Static("keys warning")
                yield Button("Use the offline provider")
                for label in ("Mode", "External docs as", "Inner loop", "Provider"):
                    yield Label(label)
                    yield Select(CHOICES, value="first")
                for label in ("Question", "External docs"):
                    yield Label(label)
                    yield TextArea()
                with Horizontal():
                    yield Input()
                    yield Button("…")
                for label in ("Max iterations", "Generate model", "Validate model"):
                    yield Label(label)
                    yield Input("x")
                yield Checkbox("Decompose")
                yield Button("Start")
            with Vertical():
                yield Static("status")
                with Horizontal():
                    yield VerticalScroll(Static("No sandbox cells yet."), classes="pane")
                    with Vertical():
                        yield Static("coverage")
                        output = (Static("No candidate yet."), OptionList())
                        yield VerticalScroll(*output, classes="pane")
                        yield VerticalScroll(Static("validation"), classes="pane")
                        with TabbedContent(classes="pane"):
                            for tab in TABS:
                                with TabPane(tab):
                                    yield Log() if tab == "Log" else OptionList()
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.tell_screen_whole)

    def tell_screen_whole(self) -> None:
        path = os.environ.get("RALPH_TUI_SCREEN_WHOLE_FILE")  # as the app's run screen
        if path:
            with open(path, "w", encoding="utf-8") as file:
                file.write("whole\n")

    def action_noop(self) -> None:
        pass


if __name__ == "__main__":
    StockFirstScreen().run()
