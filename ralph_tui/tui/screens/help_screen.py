"""F1: what the screens are for and every key that works where help was opened."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

OVERVIEW = """\
# ralph-tui

**Run** (F2): fill in the form (mode, question or task, document, iterations, provider,
models) and start; a choice (mode, inner loop, provider) changes with ← → or a click. The
panes follow the run live: the sandbox transcript (code, output, `llm_query` sub-calls),
the candidate output (QA evidence marked ✓ verified or ✗ not; enter shows a quote in its
place in the document), validation per iteration, the constraints for the next iteration,
the task memory file, and a plain log.

**Sessions** (F3): every recorded run, from any process, newest first. Filter by mode
and status, search the text of questions and outputs, sort, and open one (enter) to see
its iterations, their diffs and replayed sandbox transcripts — a running session
updates live. From any iteration, **e** edits its constraints and re-runs them as a new
session linked to this one.

**Everywhere**: ctrl+p opens the command palette (every action is there), ctrl+t picks
a theme (remembered), F1 shows this help, ctrl+q quits. Text can be copied with the
keys shown in the footer.
"""


def keys_table(keys: list[tuple[str, str, str]]) -> str:
    rows = "\n".join(
        f"| `{key}` | {description} | `{binding_id}` |" for key, description, binding_id in keys
    )
    return f"## Keys here\n\n| Key | Action | Id |\n|---|---|---|\n{rows}\n"


def remap_note(config_dir: Path) -> str:
    return (
        "## Remapping keys and themes\n\n"
        f"Keys are remapped by id in `{config_dir / 'tui.json'}`, e.g. "
        '`{"keymap": {"run.start": "ctrl+r,f5"}}`. Your own themes go in '
        f"`{config_dir / 'themes'}` as TOML files with the fields of a Textual theme "
        "(see the built-in `ralph-dark.toml`).\n"
    )


class HelpScreen(ModalScreen[None]):
    """The overview, the active keys (with their remappable ids), and where settings live."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; height: 90%;
        border: thick $primary; background: $surface;
    }
    """

    CLOSE = Binding("escape,f1", "close", "Close", id="help.close")
    BINDINGS: ClassVar[list[BindingType]] = [CLOSE]

    def __init__(self, keys: list[tuple[str, str, str]], config_dir: Path) -> None:
        super().__init__()
        closing = " or ".join(f"`{key}`" for key in self.CLOSE.key.split(","))
        self.markdown = "\n".join(
            [
                OVERVIEW,
                f"*{closing} closes this help.*\n",
                keys_table(keys),
                remap_note(config_dir),
            ]
        )

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.markdown)

    def action_close(self) -> None:
        self.dismiss(None)
