"""One public API: every name ``ralph_tui.api`` defines for users (documented in the API
reference, which says each is importable from ``ralph_tui``) is importable from
``ralph_tui``, and the lazy ``PUBLIC`` table and the imports type checkers read agree."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import ralph_tui
from ralph_tui import api

ROOT = Path(__file__).parents[1]


def test_every_public_name_of_the_api_module_is_exported() -> None:
    defined = {
        name
        for name, value in vars(api).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == api.__name__
    }
    assert defined, "the API module defines names"
    missing = sorted(name for name in defined if name not in ralph_tui.PUBLIC)
    assert missing == [], f"defined in ralph_tui.api but not exported from ralph_tui: {missing}"


def test_the_public_table_and_the_type_checking_imports_agree() -> None:
    tree = ast.parse((ROOT / "ralph_tui" / "__init__.py").read_text(encoding="utf-8"))
    [block] = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    imported = {
        alias.asname or alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == ralph_tui.PUBLIC
    assert set(ralph_tui.__all__) == {"__version__", *ralph_tui.PUBLIC}


def test_every_exported_name_resolves_to_the_module_the_table_names() -> None:
    for name, module in ralph_tui.PUBLIC.items():
        assert getattr(ralph_tui, name) is getattr(importlib.import_module(module), name)
