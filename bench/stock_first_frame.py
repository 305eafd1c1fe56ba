"""The app's first frame built from stock Textual widgets alone, no project code: what the
first frame costs Textual itself, the floor ``bench/start_instructions.py`` counts beside the
hello-world app and the app.

The same widgets as the run screen's first frame: the form's column (the question box's
label and text area, the document's label, input and browse button), the status line
beside it, and the footer with the same keys (``f1 Help`` among them, the marker the
benches wait for).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Label, Static, TextArea

KEYS = (
    ("ctrl+r", "Start"),
    ("ctrl+g", "Cancel run"),
    ("ctrl+n", "Form"),
    ("ctrl+o", "Document"),
    ("f1", "Help"),
    ("f2", "Run"),
    ("f3", "Sessions"),
    ("f4", "Evals"),
    ("f5", "Optimizer"),
    ("ctrl+t", "Theme"),
)


class StockFirstFrame(App[None]):
    CSS = """
    Screen { layout: horizontal; }
    #form { width: 38; padding: 0 1; border-right: vkey $foreground 20%; }
    #form Label { margin-top: 1; }
    #query { height: 5; }
    #doc-row { height: auto; }
    #doc { width: 1fr; }
    #browse { min-width: 5; width: 5; border: none; margin-left: 1; }
    #status { padding: 0 1; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"noop({what!r})", what) for key, what in KEYS
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="form"):
            yield Label("Question or task")
            yield TextArea(id="query", placeholder="What do you want to know?")
            yield Label("Document")
            with Horizontal(id="doc-row"):
                yield Input(placeholder="path/to/document.md", id="doc")
                yield Button("…", id="browse")
        with Vertical():
            yield Static(" IDLE   no run yet: fill in the form and start one", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#query").focus()

    def action_noop(self, what: str) -> None:
        pass


if __name__ == "__main__":
    StockFirstFrame().run()
