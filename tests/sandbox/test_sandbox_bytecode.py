"""The child runs from a compiled copy of its package, so a start does not compile it; copies
of other versions are deleted once unused for long enough."""

from __future__ import annotations

import importlib.util
import marshal
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_tui.sandbox import Sandbox
from ralph_tui.sandbox.bytecode import (
    BUILDING_PREFIX,
    CACHE_FOLDER,
    UNUSED_DAYS,
    compiled_child,
    current_copy,
)
from ralph_tui.sandbox.child import BUNDLE

DAY_S = 86400


@pytest.fixture(autouse=True)
def fresh_process() -> Iterator[None]:
    """Each test starts as a new host process would: sources not yet hashed."""
    current_copy.cache_clear()
    yield
    current_copy.cache_clear()


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
    copy = compiled_child(package)
    assert copy.name == "child" and copy.is_relative_to(tmp_path / "cache")
    for module in ("__init__", "main"):
        source = copy / f"{module}.py"
        assert source.read_bytes() == (package / f"{module}.py").read_bytes()
        assert Path(importlib.util.cache_from_source(str(source))).is_file()
    bundled = marshal.loads((copy / BUNDLE).read_bytes())
    assert list(bundled) == ["child.main"], "every module but the package, which loads them"
    namespace: dict[str, object] = {}
    exec(bundled["child.main"], namespace)
    assert namespace["ANSWER"] == 42
    assert compiled_child(package) == copy, "built once, then found"
    (package / "main.py").write_text("ANSWER = 43\n")
    current_copy.cache_clear()  # a new process, run with the changed sources
    changed = compiled_child(package)
    assert changed != copy and (changed / "main.py").read_text() == "ANSWER = 43\n"


def test_without_a_writable_cache_the_package_itself_is_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    package = make_package(tmp_path / "src", {"__init__": ""})
    assert compiled_child(package) == package


async def test_the_child_loads_its_modules_compiled(sandbox: Sandbox) -> None:
    result = await sandbox.execute(
        "import os, sys\n"
        "modules = {name: module for name, module in sys.modules.items() "
        "if name.split('.')[0] == 'child'}\n"
        "package = modules.pop('child')\n"
        "os.path.isfile(package.__spec__.cached), sorted(modules), "
        "{type(module.__spec__.loader).__name__ for module in modules.values()}, "
        "{os.path.dirname(module.__file__) for module in modules.values()}"
    )
    assert result.error is None
    package_compiled, names, loaders, folders = eval(result.output)
    assert package_compiled
    assert "child.main" in names and "child.cells" in names
    assert loaders == {"BundledModules"}
    assert folders == {"/opt/ralph-sandbox/child"}


async def test_a_failure_inside_a_child_module_names_its_source_where_the_child_sees_it(
    sandbox: Sandbox,
) -> None:
    result = await sandbox.execute(
        "import child.framing, traceback\n"
        "try:\n"
        "    child.framing.decode_json('[')\n"
        "except ValueError as exc:\n"
        "    print(traceback.extract_tb(exc.__traceback__)[-1].filename)"
    )
    assert (result.output, result.error) == ("/opt/ralph-sandbox/child/framing.py\n", None)


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look last used ``seconds`` ago."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_the_first_start_of_a_process_deletes_copies_unused_for_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / CACHE_FOLDER
    package = make_package(tmp_path / "src", {"__init__": "", "main": "ANSWER = 42\n"})
    leftovers = {
        "cpython-311-old": (UNUSED_DAYS + 1) * DAY_S,
        "cpython-311-used-an-hour-ago": 3600,  # a host of that version may still run
        f"{BUILDING_PREFIX}crashed": (UNUSED_DAYS + 1) * DAY_S,
        f"{BUILDING_PREFIX}in-progress": 1,
    }
    for name, seconds in leftovers.items():
        make_package(folder / name, {"__init__": ""})
        age(folder / name, seconds)
    (folder / "not-a-copy.txt").write_text("")
    age(folder / "not-a-copy.txt", (UNUSED_DAYS + 1) * DAY_S)
    copy = compiled_child(package)
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        [
            copy.parent.name,
            "cpython-311-used-an-hour-ago",
            f"{BUILDING_PREFIX}in-progress",
            "not-a-copy.txt",
        ]
    )


def test_each_start_marks_its_copy_used_and_rebuilds_it_if_it_was_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    package = make_package(tmp_path / "src", {"__init__": "", "main": "ANSWER = 42\n"})
    copy = compiled_child(package)
    age(copy.parent, (UNUSED_DAYS + 1) * DAY_S)
    assert compiled_child(package) == copy
    assert time.time() - copy.parent.stat().st_mtime < 60, "marked used"
    # A host of a newer version pruned it while this one ran idle for days.
    shutil.rmtree(copy.parent)
    assert compiled_child(package) == copy
    assert (copy / "main.py").read_text() == "ANSWER = 42\n"
