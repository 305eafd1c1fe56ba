"""Confined reading: for random trees of files, folders and symbolic links (inside and outside
the allowed folder; links to files, folders, links, ``..`` and ``/``) and random glob
patterns, nothing outside the allowed folder is ever opened or listed; and the glob
expansion finds what ``glob.glob`` finds."""

from __future__ import annotations

import contextlib
import glob
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ralph_tui import api
from ralph_tui.documents import Confinement, InputError, read_corpus
from ralph_tui.documents.confine import read_file
from ralph_tui.documents.globbing import expand

NAMES = ["a", "b", "c.txt", "d.md", ".h"]
SPECIAL_TARGETS = ["..", ".", "../..", "/", "/proc/self/root", "missing"]
PARTS = ["*", "**", "?", "a", "b", "*.txt", "..", "[ab]*", "c.txt", ".*", "*.md"]


@dataclass(frozen=True)
class Node:
    kind: str  # dir, file or link
    parent: int  # an index into the folders made so far (0: the root, 1: outside)
    name: str
    target: int | str  # a link's: a node made before it, or one of SPECIAL_TARGETS
    absolute: bool  # a link's target written as an absolute path


nodes = st.builds(
    Node,
    kind=st.sampled_from(["dir", "file", "link", "link"]),
    parent=st.integers(0, 20),
    name=st.sampled_from(NAMES),
    target=st.integers(0, 20) | st.sampled_from(SPECIAL_TARGETS),
    absolute=st.booleans(),
)
patterns = st.lists(st.sampled_from(PARTS), min_size=0, max_size=4)


@dataclass
class Tree:
    base: Path
    root: Path
    outside: Path


def build(base: Path, plan: list[Node], *, links: bool = True) -> Tree:
    """``base/root`` (the allowed folder) and ``base/outside``, filled as ``plan`` says."""
    tree = Tree(base, base / "root", base / "outside")
    tree.root.mkdir()
    tree.outside.mkdir()
    folders = [tree.root, tree.outside]
    made: list[Path] = [tree.root, tree.outside]
    for node in plan:
        parent = folders[node.parent % len(folders)]
        path = parent / node.name
        if os.path.lexists(path):
            continue
        if node.kind == "dir":
            path.mkdir()
            folders.append(path)
        elif node.kind == "file" or not links:
            where = "outside" if path.is_relative_to(tree.outside) else "inside"
            path.write_text(f"{where} {node.name}: text of {path.relative_to(base)}\n")
        else:
            target = made[node.target % len(made)] if isinstance(node.target, int) else node.target
            if isinstance(target, Path):
                target = str(target) if node.absolute else os.path.relpath(target, parent)
            path.symlink_to(target)
        made.append(path)
    return tree


@contextlib.contextmanager
def fresh_folder() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="confine-")).resolve()
    try:
        yield base
    finally:
        shutil.rmtree(base)


PYTHON = tuple(Path(p).resolve() for p in {sys.prefix, sys.base_prefix, *sys.path} if p)
"""Where an import made meanwhile (a converter loaded on first use) reads from."""


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[str, Path]]]:
    """Every file opened and folder listed meanwhile, by whatever means, as its real path
    (but Python's own, for an import)."""
    seen: list[tuple[str, Path]] = []

    def spy(what: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, str | os.PathLike):
                resolved = Path(os.path.realpath(path))
                if not any(resolved.is_relative_to(folder) for folder in PYTHON):
                    seen.append((what, resolved))
            return real(path, *args, **kwargs)

        return call

    with (
        mock.patch("os.open", spy("opened", os.open)),
        mock.patch("io.open", spy("opened", io.open)),
        mock.patch("builtins.open", spy("opened", open)),
        mock.patch("os.scandir", spy("listed", os.scandir)),
        mock.patch("os.listdir", spy("listed", os.listdir)),
    ):
        yield seen


def spec_of(tree: Tree, parts: list[str], anchor: str) -> Path:
    start = {"root": tree.root, "outside": tree.outside, "base": tree.base}[anchor]
    return start.joinpath(*parts)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    plan=st.lists(nodes, max_size=12),
    specs=st.lists(
        st.tuples(patterns, st.sampled_from(["root", "root", "root", "outside", "base"])),
        min_size=1,
        max_size=2,
    ),
)
def test_nothing_outside_the_allowed_folder_is_ever_opened(
    plan: list[Node], specs: list[tuple[list[str], str]]
) -> None:
    with fresh_folder() as base:
        tree = build(base, plan)
        within = Confinement.of([tree.root])
        paths = [spec_of(tree, parts, anchor) for parts, anchor in specs]
        with recording() as seen:
            try:
                corpus = read_corpus(paths, within=within)
            except InputError as refused:
                assert "\n" not in refused.one_line()
                corpus = None
        for what, real in seen:
            if what == "listed":
                assert within.admits(real), f"listed {real} for {paths}"
            else:
                assert within.admits(real) or real == Path("/dev/null"), f"opened {real}"
        for document in corpus.documents if corpus else []:
            assert document.path == document.path.resolve() and within.admits(document.path)
            assert document.text.startswith("inside")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(nodes, max_size=12), parts=patterns.filter(bool))
def test_a_pattern_finds_what_glob_finds_where_no_link_leads_to_a_folder(
    plan: list[Node], parts: list[str]
) -> None:
    with fresh_folder() as base:
        tree = build(base, [n for n in plan if n.kind != "link"], links=False)
        pattern = tree.root.joinpath(*parts)
        # glob.glob("missing/**") gives "missing/", which does not exist: left out here.
        matches = glob.glob(str(pattern), recursive=True)
        expected = {Path(p) for p in matches if os.path.lexists(p)}
        assert {p for p in expand(pattern)} == expected


def test_a_link_in_a_loop_is_walked_once(tmp_path: Path) -> None:
    for name in "abcd":
        (tmp_path / name).symlink_to(".")
    (tmp_path / "doc.txt").write_text("text")
    found = expand(tmp_path / "**" / "*.txt")
    assert {p.resolve() for p in found} == {tmp_path / "doc.txt"}
    assert len(found) <= 5, "each real folder once, not 4**40 paths"


def test_a_file_swapped_for_a_link_after_the_check_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "secret").write_text("outside")
    checked = tmp_path / "root" / "doc.txt"
    checked.write_text("inside")
    within = Confinement.of([tmp_path / "root"])
    assert read_file(checked, within=within) == b"inside"
    checked.unlink()
    checked.symlink_to(tmp_path / "secret")
    with pytest.raises(OSError):
        read_file(checked, within=within)
    assert read_file(checked) == b"outside", "the user's own paths are followed as before"


def test_a_folder_swapped_for_a_link_after_the_check_is_caught_once_open(tmp_path: Path) -> None:
    (tmp_path / "root" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "doc.txt").write_text("outside")
    within = Confinement.of([tmp_path / "root"])
    shutil.rmtree(tmp_path / "root" / "sub")
    (tmp_path / "root" / "sub").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        read_file(tmp_path / "root" / "sub" / "doc.txt", within=within)


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    with pytest.raises(OSError, match="not a regular file"):
        read_file(tmp_path / "pipe.txt", within=Confinement.of([tmp_path]))


def test_the_api_confines_a_search_to_the_folders_it_is_given(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "plant.txt").write_text("Filters are backwashed every 48 hours.")
    (tmp_path / "secret.txt").write_text("Filters are opened with the code SWORDFISH.")
    (tmp_path / "root" / "link.txt").symlink_to(tmp_path / "secret.txt")
    options = {"out_dir": tmp_path / "out", "embedder": "none"}
    assert "SWORDFISH" in api.search("filters", tmp_path / "root", **options).model_dump_json()
    confined = api.search("filters", tmp_path / "root", within=[tmp_path / "root"], **options)
    assert "SWORDFISH" not in confined.model_dump_json() and confined.passages
    assert confined.notes == [
        f"not read: root/link.txt leads outside the folders this server may read "
        f"({tmp_path / 'root'})"
    ]


def test_a_root_given_through_a_link_is_its_real_folder(tmp_path: Path) -> None:
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "real" / "sub" / "doc.txt").write_text("inside text")
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    within = Confinement.of([tmp_path / "alias"])
    assert within.folders == (tmp_path / "real",)
    corpus = read_corpus([tmp_path / "alias" / "**" / "*.txt"], within=within)
    assert [d.path for d in corpus.documents] == [tmp_path / "real" / "sub" / "doc.txt"]
