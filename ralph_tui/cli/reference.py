"""The generated parts of the documentation site's reference, in Markdown: every command and
flag (from the argument parsers), every setting (from the settings' declarations), the exit
codes, the event types and the trace files' fields (from their models). The site's build hook
(``docs/hooks.py``) puts them into the reference pages, so they never drift from the code."""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import re
import textwrap
import types
from collections.abc import Iterator
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ralph_tui.cli.app import build_parser
from ralph_tui.cli.app_start import app_parser
from ralph_tui.config import docs as settings_docs
from ralph_tui.config import setting_specs
from ralph_tui.config.docs import settings_anchor
from ralph_tui.config.inner_modes import INNER_MODES
from ralph_tui.errors import OUTCOMES, ExitCode, RalphError
from ralph_tui.events import EXIT_CODE_OF_STATUS, BaseEvent, Event
from ralph_tui.mcp.client_settings import CLIENT_SETTINGS

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def markdown_text(text: str, *, in_table: bool = False) -> str:
    """``text`` (a docstring's or a help's, on one line) as Markdown: ``<out>`` is not an
    HTML tag, a reStructuredText code span (two backticks) is a Markdown one, and in a table
    a ``|`` outside code does not end the cell (one inside code never does)."""
    parts = _CODE_SPAN.split(" ".join(text.replace("``", "`").split()))
    return "".join(part if part.startswith("`") else _plain(part, in_table) for part in parts)


def _plain(text: str, in_table: bool) -> str:
    text = text.replace("<", "&lt;")
    return text.replace("|", "\\|") if in_table else text


def cell(text: str) -> str:
    """``text`` as the content of a Markdown table cell."""
    return markdown_text(text, in_table=True)


def class_doc(cls: type) -> str:
    """The docstring of ``cls`` itself (not one it inherits), as Markdown, or nothing."""
    doc = vars(cls).get("__doc__")
    return markdown_text(inspect.cleandoc(doc)) if doc else ""


def settings_reference() -> str:
    """Every setting, a table per group under its own heading (``settings_docs``), as the
    site's Markdown."""
    return markdown_text_lines(settings_docs.settings_reference())


def mcp_client_settings_reference() -> str:
    """The settings an MCP client may give, each with its bound, as a Markdown table."""
    specs = setting_specs()
    rows = ["| Setting | A client may set it to | What it is |", "|---|---|---|"]
    for name, rule in CLIENT_SETTINGS.items():
        rows.append(f"| `{name}` | {cell(rule.describe(None))} | {cell(specs[name].doc)} |")
    return "\n".join(rows)


def inner_modes_reference() -> str:
    """Each inner mode with what the model does in it, as a Markdown table."""
    rows = ["| Mode | What the model does |", "|---|---|"]
    rows += [f"| `{mode}` | {cell(what)} |" for mode, what in INNER_MODES.items()]
    return "\n".join(rows)


def markdown_text_lines(text: str) -> str:
    """``markdown_text`` of each line of ``text``, its line breaks kept."""
    return "\n".join(markdown_text(line) for line in text.splitlines())


# ---- command line ------------------------------------------------------------------------


def cli_reference(settings_page: str = "settings.md") -> str:
    """Every command and subcommand of ``ralph-tui``: usage, what it does, and its flags;
    the settings' flags linked, group by group, to ``settings_page``."""
    sections = _command_sections(
        app_parser(every_run_flag=True), None, settings_page, subcommands_of=build_parser()
    )
    return "\n".join(sections).strip() + "\n"


def _command_sections(
    parser: argparse.ArgumentParser,
    summary: str | None,
    settings_page: str,
    subcommands_of: argparse.ArgumentParser | None = None,
) -> Iterator[str]:
    """The section of ``parser``, then of each subcommand of ``subcommands_of`` (default:
    ``parser``'s own; ``ralph-tui``'s section is the app's, its subcommands the CLI's)."""
    depth = max(2, parser.prog.count(" ") + 1)
    yield f"{'#' * depth} `{parser.prog}`\n"
    about = parser.description or summary
    if about:
        yield markdown_text(about) + "\n"
    yield "```\n" + _usage(parser) + "\n```\n"
    own = [a for a in parser._actions if _shown(a) and a.dest not in setting_specs()]
    if own:
        yield "| Argument | Value | What it does |\n|---|---|---|"
        yield from (_argument_row(parser, action) for action in own)
        yield ""
    settings_rows = list(_settings_rows(parser, settings_page))
    if settings_rows:
        yield "| Settings | Flags |\n|---|---|"
        yield from settings_rows
        yield ""
    for action in (subcommands_of or parser)._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield from _command_sections(sub, helps.get(name), settings_page)


def _usage(parser: argparse.ArgumentParser) -> str:
    """The usage line, wrapped at 88 columns, with the settings' flags folded into one."""
    short = argparse.ArgumentParser(prog=parser.prog, add_help=False)
    for action in parser._actions:
        if action.dest not in setting_specs() and action.help != argparse.SUPPRESS:
            short._add_action(action)
    usage = short.format_usage().removeprefix("usage: ").strip()
    if any(action.dest in setting_specs() for action in parser._actions):
        usage += " [settings flags]"
    return textwrap.fill(" ".join(usage.split()), 88, subsequent_indent="    ")


def _shown(action: argparse.Action) -> bool:
    """Whether ``action`` gets a row (``--help``, which every command takes, does not)."""
    hidden = (argparse._SubParsersAction, argparse._HelpAction)
    return action.help != argparse.SUPPRESS and not isinstance(action, hidden)


def _argument_row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}`"
    if action.choices is not None:
        value = " \\| ".join(f"`{choice}`" for choice in action.choices)
    elif action.nargs == 0:
        value = ""
    else:
        metavar = action.metavar or (action.dest.upper() if action.option_strings else None)
        value = f"`{metavar}`" if metavar else ""
    what = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.default not in (None, False, [], argparse.SUPPRESS) and action.nargs != 0:
        what += f" (default: `{action.default}`)"
    if isinstance(action, argparse._AppendAction) and "repeat" not in what:
        what += " (repeatable)"
    return f"| {names} | {value} | {cell(what)} |"


def _settings_rows(parser: argparse.ArgumentParser, settings_page: str) -> Iterator[str]:
    specs = setting_specs()
    for group in parser._action_groups:
        flags = [a.option_strings[0] for a in group._group_actions if a.dest in specs]
        if flags:
            name = specs[group._group_actions[0].dest].group
            link = f"[{name.capitalize()}]({settings_page}#{settings_anchor(name)})"
            yield f"| {link} | {', '.join(f'`{flag}`' for flag in flags)} |"


# ---- exit codes --------------------------------------------------------------------------


def exit_codes_reference() -> str:
    """Every exit code, what it means, the run statuses that end with it, and the kinds of
    error that do (with the heading a person sees), all read from ``errors.OUTCOMES``."""
    docs = attribute_docs(ExitCode)
    lines = [
        "| Code | Name | Run statuses | What it means | Errors (heading; status) |",
        "|---|---|---|---|---|",
    ]
    for code in ExitCode:
        statuses = [s for s, c in EXIT_CODE_OF_STATUS.items() if c == code and s != "running"]
        shown = ", ".join(f"`{status}`" for status in statuses) or "—"
        what = cell(docs.get(code.name, ""))
        kinds = [
            f"`{kind.__name__}` ({outcome.title}; `{outcome.status}`)"
            for kind, outcome in OUTCOMES.items()
            if issubclass(kind, RalphError) and outcome.exit_code == code
        ]
        errors = ", ".join(kinds) or "—"
        lines.append(f"| `{int(code)}` | `{code.name}` | {shown} | {what} | {errors} |")
    return "\n".join(lines) + "\n"


# ---- models: events and trace files -----------------------------------------------------


def events_reference() -> str:
    """Every event type: its ``type``, what it is, and its fields; then the objects that
    events hold."""
    common = set(BaseEvent.model_fields)
    sections = []
    for event in event_types():
        doc = f"{class_doc(event)}\n\n" if class_doc(event) else ""
        table = fields_table(event, leave_out=common | {"type"})
        sections.append(f"### `{event.model_fields['type'].default}`\n\n{doc}{table}")
    nested = [model for model in models_within(event_types()) if not issubclass(model, BaseEvent)]
    sections += [model_section(model, "###") for model in nested]
    return "\n".join(sections)


def event_types() -> list[type[BaseEvent]]:
    """The event classes, in the order the ``Event`` union lists them."""
    union = get_args(Event)[0] if get_origin(Event) is Annotated else Event
    return list(get_args(union))


def model_section(model: type[BaseModel], heading: str = "##") -> str:
    """A heading named after ``model``, its docstring and its fields."""
    doc = f"{class_doc(model)}\n\n" if class_doc(model) else ""
    return f"{heading} `{model.__name__}`\n\n{doc}{fields_table(model)}"


def fields_table(model: type[BaseModel], leave_out: set[str] | frozenset[str] = frozenset()) -> str:
    """A Markdown table of ``model``'s fields as they are written in JSON: key, type,
    default and what the field says of itself (its docstring, or its description; the column
    is left out when no field says anything)."""
    docs = attribute_docs(model)
    fields = {n: f for n, f in model.model_fields.items() if n not in leave_out}
    said = {name: docs.get(name) or field.description or "" for name, field in fields.items()}
    explained = any(said.values())
    rows = ["| Key | Type | Default |" + (" What it holds |" if explained else ""),
            "|---|---|---|" + ("---|" if explained else "")]  # fmt: skip
    for name, field in fields.items():
        key = field.serialization_alias or field.alias or name
        kind = " \\| ".join(f"`{part}`" for part in type_parts(field.annotation))
        what = f" {cell(said[name])} |" if explained else ""
        rows.append(f"| `{key}` | {kind} | {_default(field)} |{what}")
    return "\n".join(rows) + "\n"


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory in (list, dict):
        return "`[]`" if field.default_factory is list else "`{}`"
    if field.default_factory is not None:
        return "set when written"  # a time, a process id, a host name
    return cell(f"`{json.dumps(field.default, default=str)}`")


def type_parts(annotation: Any) -> list[str]:
    """The alternatives of a field's type, a literal as JSON writes it: ``['str', 'None']``,
    ``['"qa"', '"task"']``."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [part for arg in get_args(annotation) for part in type_parts(arg)]
    if get_origin(annotation) is Literal:
        return [json.dumps(arg) for arg in get_args(annotation)]
    return [type_name(annotation)]


def type_name(annotation: Any) -> str:
    """How a field's type reads: ``str | None``, ``list[RuleResult]``, ``"qa" | "task"``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType) or origin is Literal:
        return " | ".join(type_parts(annotation))
    if origin is not None:
        inner = ", ".join(type_name(arg) for arg in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def models_within(models: list[type[BaseEvent]] | list[type[BaseModel]]) -> list[type[BaseModel]]:
    """The models that ``models``' fields hold (at any depth), each once, in the order met."""
    found: list[type[BaseModel]] = []

    def visit(annotation: Any) -> None:
        is_model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
        if is_model and annotation not in found:
            found.append(annotation)
            for field in annotation.model_fields.values():
                visit(field.annotation)
        for arg in get_args(annotation):
            visit(arg)

    for model in models:
        for field in model.model_fields.values():
            visit(field.annotation)
    return found


def attribute_docs(cls: type[BaseModel] | type[Enum]) -> dict[str, str]:
    """The docstrings written under a class's attributes (``x: int`` then ``\"\"\"...\"\"\"``),
    by attribute name, from the class and its bases."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.split(".")[0] != "ralph_tui":
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0]
        assert isinstance(body, ast.ClassDef)
        for statement, following in zip(body.body, body.body[1:], strict=False):
            name, text = _assigned_name(statement), _string(following)
            if name and text is not None:
                docs[name] = inspect.cleandoc(text)
    return docs


def _string(statement: ast.stmt) -> str | None:
    """The text of a statement that is a string alone (a docstring), else ``None``."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        value = statement.value.value
        return value if isinstance(value, str) else None
    return None


def _assigned_name(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None
