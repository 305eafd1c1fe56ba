"""The child runs from a compiled copy of its package, so a start does not compile it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ralph_tui.sandbox import Sandbox
from ralph_tui.sandbox.bytecode import compiled_child


def make_package(root: Path, modules: dict[str, str]) -> Path:
    package = root / "child"
    package.mkdir(parents=True)
    for name, source in modules.items():
        (package / f"{name}.py").write_text(source)
    return package


def test_the_copy_holds_each_module_beside_its_byte_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    package = make_package(tmp_path / "src", {"__init__": "", "main": "ANSWER = 42\n"})
    copy = compiled_child.__wrapped__(package)
    assert copy.name == "child" and copy.is_relative_to(tmp_path / "cache")
    for module in ("__init__", "main"):
        source = copy / f"{module}.py"
        assert source.read_bytes() == (package / f"{module}.py").read_bytes()
        assert Path(importlib.util.cache_from_source(str(source))).is_file()
    assert compiled_child.__wrapped__(package) == copy, "built once, then found"
    (package / "main.py").write_text("ANSWER = 43\n")
    changed = compiled_child.__wrapped__(package)
    assert changed != copy and (changed / "main.py").read_text() == "ANSWER = 43\n"


def test_without_a_writable_cache_the_package_itself_is_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    package = make_package(tmp_path / "src", {"__init__": ""})
    assert compiled_child.__wrapped__(package) == package


async def test_the_child_finds_byte_code_for_its_modules(sandbox: Sandbox) -> None:
    result = await sandbox.execute(
        "import os, sys\n"
        "sorted({name: os.path.isfile(module.__spec__.cached) for name, module in "
        "sys.modules.items() if name.startswith('child.')}.items())"
    )
    assert result.error is None
    found = eval(result.output)
    assert found and all(compiled for _, compiled in found), found
