"""Nothing heavy is imported before it is needed: ``ralph-tui --help``, each subcommand's
``--help`` and the app's first paint load none of the SDKs, numpy, bm25s, the tokenizer, nor
the loop, retrieval, eval or batch stacks, nor (for the first paint) the event models and
document readers, nor the settings (read right after it; the command line does not load
textual).

Each case runs in a fresh interpreter and reads its ``sys.modules``: an import added on a
start path fails here, naming the module and who imported it is ``python -X importtime``'s
job.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ralph_tui.tui.screens
from ralph_tui.cli.commands import COMMANDS

STACKS = (
    "anthropic",
    "openai",
    "httpx2",
    "numpy",
    "bm25s",
    "tokenizers",
    "ralph_tui.loops",
    "ralph_tui.retrieval",
    "ralph_tui.evals",
    "ralph_tui.batch",
    "ralph_tui.agents",
    "ralph_tui.sandbox",
    "ralph_tui.optimize",
)
"""What no start path may load: it is what a run, a search or an eval loads."""
COMMAND_LINE = (*STACKS, "textual")
"""The command line parses without the app."""
SETTINGS = ("pydantic", "pydantic_settings", "ralph_tui.config")
"""The settings and what reads them."""
TOP_HELP = (*COMMAND_LINE, *SETTINGS)
"""``ralph-tui --help`` lists the subcommands without even the settings."""
FIRST_SCREEN = ("run_screen",)
"""The screen the app paints first (the error modal loads with the first error)."""
LATER_SCREENS = tuple(
    module.name
    for module in pkgutil.iter_modules(
        ralph_tui.tui.screens.__path__, f"{ralph_tui.tui.screens.__name__}."
    )
    if module.name.rpartition(".")[2] not in FIRST_SCREEN
)
"""Every other screen and modal loads when first shown, not before the first paint."""
RUN_MODELS = (
    "ralph_tui.events",
    "ralph_tui.evidence",
    "ralph_tui.validate",
    "ralph_tui.documents",
    "ralph_tui.external",
)
"""The event and evidence models, the checks and the document readers load with a run's
first event, or the first quote shown, not before the first paint."""
OUT_OF_SIGHT = (
    "ralph_tui.tui.core.run_progress",
    "ralph_tui.tui.core.run_ending",
    "ralph_tui.tui.core.form_values",
    "ralph_tui.errors",
    "ralph_tui.json_input",
    "ralph_tui.tui.commands",
    "textual.widgets._tabbed_content",
    "textual.widgets._checkbox",
)
"""What the first frame does not show and so does not load: the progress model (the status
line says no run has started), how a run ended, the form's values, the error kinds, the
JSON reader (no preferences saved yet), the palette's entries, and the widgets of the
monitor's tabs and of the rest of the form."""
HIGHLIGHTER = ("textual.highlight", "pygments")
"""The code highlighter loads with the first sandbox cell shown, or the app's warm-up after
the first paint."""

HELP_PROGRAM = """
import contextlib, io, json, sys
from ralph_tui.main import main
with contextlib.redirect_stdout(io.StringIO()) as shown:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "shown": shown.getvalue(), "modules": sorted(sys.modules)}))
"""

FIRST_PAINT_PROGRAM = """
import json, sys
from pathlib import Path
from ralph_tui.tui.app import RalphApp

class FirstPaint(RalphApp):
    def on_ready(self) -> None:
        # Textual's Ready: the first frame is written, and nothing after it has run yet.
        self.seen = {"modules": sorted(sys.modules), "screen": type(self.screen).__name__}
        self.exit(0)

app = FirstPaint(config_path=Path(sys.argv[1]), demo=sys.argv[2] == "demo")
app.run(headless=True)
print(json.dumps(app.seen))
"""


def loaded(modules: list[str], forbidden: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that are, or are inside, one of ``forbidden``."""
    return [m for m in modules if any(m == f or m.startswith(f"{f}.") for f in forbidden)]


def run_help(*argv: str) -> dict[str, object]:
    ran = subprocess.run(
        [sys.executable, "-c", HELP_PROGRAM, *argv], capture_output=True, text=True, check=True
    )
    seen: dict[str, object] = json.loads(ran.stdout)
    return seen


def test_the_command_help_loads_no_subcommand_and_no_settings() -> None:
    seen = run_help("--help")
    assert seen["code"] == 0
    assert all(name in str(seen["shown"]) for name in COMMANDS)
    modules = seen["modules"]
    assert isinstance(modules, list)
    assert loaded(modules, TOP_HELP) == []
    assert "ralph_tui.cli.commands" in modules  # the program did go through the CLI


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_subcommand_help_loads_its_arguments_not_what_it_runs(command: str) -> None:
    seen = run_help(command, "--help")
    assert seen["code"] == 0 and f"ralph-tui {command}" in str(seen["shown"])
    modules = seen["modules"]
    assert isinstance(modules, list)
    assert loaded(modules, COMMAND_LINE) == []
    arguments_module = COMMANDS[command].arguments.partition(":")[0]
    run_module = COMMANDS[command].run.partition(":")[0]
    assert arguments_module in modules and run_module not in modules


def test_the_forbidden_stacks_are_what_a_subcommand_run_loads() -> None:
    """The check can fail: loading a subcommand's implementation does load the stacks."""
    program = (
        "import json, sys; from ralph_tui.cli.commands import COMMANDS; "
        "COMMANDS['eval'].runner(); print(json.dumps(sorted(sys.modules)))"
    )
    modules = json.loads(subprocess.check_output([sys.executable, "-c", program], text=True))
    assert {"ralph_tui.evals", "ralph_tui.batch", "ralph_tui.loops"} <= set(loaded(modules, STACKS))


@pytest.mark.parametrize("mode", ["app", "demo"])
def test_the_app_paints_before_the_loop_stack_loads(tmp_path: Path, mode: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", FIRST_PAINT_PROGRAM, str(tmp_path), mode],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "RALPH_OUT_DIR": str(tmp_path / "out")},
    )
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["screen"] == "RunScreen"
    assert loaded(seen["modules"], STACKS) == []
    assert loaded(seen["modules"], LATER_SCREENS) == []
    assert loaded(seen["modules"], HIGHLIGHTER) == []
    assert loaded(seen["modules"], RUN_MODELS) == []
    assert loaded(seen["modules"], SETTINGS) == []
    assert loaded(seen["modules"], OUT_OF_SIGHT) == []


def test_the_later_screens_are_every_screen_but_the_first() -> None:
    """The check can fail: the screens it forbids on the first paint are the app's."""
    assert "ralph_tui.tui.screens.evidence_modal" in LATER_SCREENS
    assert "ralph_tui.tui.screens.session_screen" in LATER_SCREENS
    assert "ralph_tui.tui.screens.run_screen" not in LATER_SCREENS
