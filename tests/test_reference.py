"""The reference pages' generated parts: every command, flag, setting, exit code and event
type of the code is in them, written as valid Markdown."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.exceptions import PluginError

from ralph_tui.cli import reference
from ralph_tui.cli.app import build_parser
from ralph_tui.config import setting_specs
from ralph_tui.config.docs import settings_anchor
from ralph_tui.config.settings import GROUPS
from ralph_tui.errors import ExitCode
from ralph_tui.traces.models import IterationTrace, SessionRecord

ROOT = Path(__file__).parents[1]


def command_progs(parser: argparse.ArgumentParser) -> list[str]:
    """``ralph-tui``, ``ralph-tui run``, ``ralph-tui sessions list``, ...: every command."""
    progs = [parser.prog]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                progs += command_progs(sub)
    return progs


def shown_flags(parser: argparse.ArgumentParser) -> set[str]:
    """The first spelling of every flag ``--help`` shows (but ``-h`` itself), over every
    command."""
    flags = {
        action.option_strings[0]
        for action in parser._actions
        if action.option_strings
        and action.help != argparse.SUPPRESS
        and not isinstance(action, argparse._HelpAction)
    }
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= shown_flags(sub)
    return flags


def test_the_cli_reference_has_every_command_and_flag() -> None:
    text = reference.cli_reference()
    parser = build_parser()
    for prog in command_progs(parser):
        assert f"# `{prog}`\n" in text, prog
    for flag in shown_flags(parser):
        assert f"`{flag}`" in text, flag
    assert "`--propose`" in text  # optimize's own flag
    assert "--no-activate" in text and "(settings.md#models)" in text


def test_every_setting_declared_with_a_flag_is_taken_by_a_command() -> None:
    # a flag declared but added to no command is a flag the docs may name and no one can use
    flags = shown_flags(build_parser())
    unused = [s.flags[0] for s in setting_specs().values() if s.flags and s.flags[0] not in flags]
    assert unused == []


def test_the_cli_reference_leaves_out_hidden_flags() -> None:
    parser = build_parser()
    run = next(
        action.choices["run"]
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    hidden = {a.option_strings[0] for a in run._actions if a.help == argparse.SUPPRESS}
    assert hidden  # run keeps optimize's flags for `run --optimize`, hidden
    section = reference.cli_reference().split("## `ralph-tui run`")[1].split("\n## ")[0]
    for flag in hidden:
        assert flag not in section, flag


def test_the_settings_reference_has_every_setting_under_its_group() -> None:
    text = reference.settings_reference()
    for group in GROUPS:
        heading = f"## {group.group.capitalize()} {{#{settings_anchor(group.group)}}}"
        assert heading in text
    for spec in setting_specs().values():
        assert f"`{spec.env}`" in text
    assert "**" not in text  # each group is named by a heading, not a bold line
    assert "<out>" not in text and "(default &lt;out>/context.md)" in text


def test_the_exit_codes_table_has_every_code_with_its_statuses() -> None:
    text = reference.exit_codes_reference()
    for code in ExitCode:
        assert f"| `{int(code)}` | `{code.name}` |" in text
    assert "| `1` | `FAILED` | `failed`, `timed_out`, `capped` |" in text
    [failed] = [line for line in text.splitlines() if line.startswith("| `1` |")]
    assert "`CostCapReached` (The run reached its cap; `capped`)" in failed
    [provider] = [line for line in text.splitlines() if line.startswith("| `3` |")]
    assert "CostCapReached" not in provider, "a cap is not a provider's failure"


def test_the_events_reference_has_every_event_type() -> None:
    text = reference.events_reference()
    for event in reference.event_types():
        assert f"### `{event.model_fields['type'].default}`" in text
    assert "### `RuleResult`" in text  # what hard_validation holds


def test_trace_fields_are_named_as_the_files_write_them() -> None:
    iteration = reference.fields_table(IterationTrace)
    assert "| `hardValidation` |" in iteration and "| `failureTag` |" in iteration
    session = reference.fields_table(SessionRecord)
    assert "| `llm_calls` | `int` | `0` | Requests sent" in session
    assert '| `status` | `"running"` \\| `"passed"`' in session
    assert "| `pid` | `int` | set when written |" in session


def test_markdown_text_escapes_html_outside_code_only() -> None:
    assert reference.markdown_text("default <out>/x, ``<out>``") == "default &lt;out>/x, `<out>`"
    assert reference.cell("a | b `c | d`") == "a \\| b `c | d`"


def load_hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_hook_fills_placeholders_and_refuses_unknown_ones() -> None:
    hooks = load_hooks()
    page = SimpleNamespace(file=SimpleNamespace(src_uri="reference/cli.md"))
    filled = hooks.on_page_markdown("# X\n\n<!-- generated: exit_codes -->\n", page, {}, [])
    assert "| `130` | `CANCELLED` |" in filled
    with pytest.raises(PluginError, match="no generated part 'nothing'"):
        hooks.on_page_markdown("<!-- generated: nothing -->", page, {}, [])
