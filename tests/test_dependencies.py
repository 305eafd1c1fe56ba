"""Every module ralph-tui relies on comes from a dependency pyproject.toml declares.

The modules the code imports itself are read from its source; the modules its dependencies
load for it (``lxml_html_clean`` under trafilatura) are those a fresh interpreter has loaded
after converting a page, a PDF and a Word file. ``./dev test`` then proves the same end to end
by installing the built wheel with an older pip.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from functools import cache
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).parents[1]
PACKAGE = "ralph_tui"
DEVELOPMENT_EXTRAS = ("dev", "docs")
"""Extras for working on ralph-tui (tests, the docs site), not for running it."""
"""Tools that check the code; the code itself must run without them."""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project: dict[str, object] = tomllib.load(file)["project"]
    return project


def _requirements(group: str | None) -> list[Requirement]:
    """``[project].dependencies`` (``group`` None), or one optional extra's."""
    project = _project()
    if group is None:
        declared = project["dependencies"]
    else:
        extras = project["optional-dependencies"]
        assert isinstance(extras, dict)
        declared = extras[group]
    assert isinstance(declared, list)
    return [Requirement(line) for line in declared]


def _runtime_declared() -> set[str]:
    """Distributions the shipped code may import: the dependencies and the runtime extras."""
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    groups = [None, *(name for name in extras if name not in DEVELOPMENT_EXTRAS)]
    return {_canonical(req.name) for group in groups for req in _requirements(group)}


def _installed_through_plain_requirements() -> set[str]:
    """The dependencies and, transitively, every installed distribution they require
    unconditionally. Extras are not followed: pip before 23.3 compares an extra's name as
    written (trafilatura asks for ``lxml[html_clean]``, lxml 6 provides ``html-clean``), so a
    distribution reached only through another package's extra may be missing; declare it."""
    found: set[str] = set()
    pending = [req.name for req in _requirements(None)]
    while pending:
        name = _canonical(pending.pop())
        if name in found:
            continue
        found.add(name)
        try:
            lines = requires(name) or []
        except PackageNotFoundError:
            continue
        for line in lines:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                pending.append(req.name)
    return found


def _third_party(modules: set[str]) -> dict[str, list[str]]:
    """Each top-level module that is neither the standard library nor ralph-tui, with the
    installed distributions that provide it (none: not installed)."""
    provided = packages_distributions()
    return {
        module: [_canonical(dist) for dist in provided.get(module, [])]
        for module in sorted(modules)
        if module not in sys.stdlib_module_names and module != PACKAGE
    }


def _imported_by_the_code() -> dict[str, set[str]]:
    """Top-level module names the code under ralph_tui/ imports, with the files that do."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_module_the_code_imports_is_declared() -> None:
    imported = _imported_by_the_code()
    declared = _runtime_declared()
    undeclared = {
        module: sorted(imported[module])
        for module, dists in _third_party(set(imported)).items()
        if not declared.intersection(dists)
    }
    assert "trafilatura" in imported  # the scan reads the code's imports
    assert undeclared == {}, f"imported but not a declared dependency: {undeclared}"


CONVERT_THE_SAMPLES = """
import io, json, sys
at_start = set(sys.modules)  # site's own (.pth files), there whatever runs
from pathlib import Path
import docx
from ralph_tui.documents.convert import extract
samples = Path(sys.argv[1])
word = docx.Document()
word.add_paragraph("The pump seals are inspected every three months.")
buffer = io.BytesIO()
word.save(buffer)
texts = {
    "html": extract((samples / "pump.html").read_bytes(), "html").text,
    "pdf": extract((samples / "pump.pdf").read_bytes(), "pdf").text,
    "docx": extract(buffer.getvalue(), "docx").text,
}
loaded = {name.split(".")[0] for name in set(sys.modules) - at_start}
print(json.dumps({"modules": sorted(loaded), "texts": texts}))
"""


def test_converting_documents_loads_only_declared_distributions() -> None:
    """A fresh interpreter converts each format; every distribution whose modules it loaded
    is declared or a plain requirement of a declared one."""
    samples = ROOT / "tests" / "documents" / "samples"
    ran = subprocess.run(
        [sys.executable, "-c", CONVERT_THE_SAMPLES, str(samples)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    loaded = json.loads(ran.stdout)
    for fmt, text in loaded["texts"].items():
        assert "pump seals are inspected" in text, (fmt, text)
    reachable = _installed_through_plain_requirements()
    # A module no distribution lists (a compiled extension's shared helper) has nothing to declare.
    unreachable = {
        module: dists
        for module, dists in _third_party(set(loaded["modules"])).items()
        if dists and not reachable.intersection(dists)
    }
    assert unreachable == {}, f"loaded but neither declared nor required plainly: {unreachable}"
