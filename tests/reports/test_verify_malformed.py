"""A bundle from someone else is input: whatever is malformed in it (nesting past the JSON
reader's bounds, a number past 64 bits, a negative or reversed span, a quote or a list past
the bundle schema's sizes) is refused by ``ralph-tui verify`` in one line with exit 2, before
any source is read, never with a traceback or exit 4."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli.app import run_cli
from ralph_tui.errors import ExitCode
from ralph_tui.reports.bundle import MAX_ITEMS, MAX_QUOTE_CHARS
from tests.reports.bundles import locate, make_bundle, read_source

TEXT = "The pumps are greased every 500 hours of running.\n"
QUOTE = "greased every 500 hours"


def good_bundle(folder: Path) -> dict[str, Any]:
    (folder / "manual.md").write_text(TEXT, encoding="utf-8")
    source, document = read_source(folder / "manual.md")
    bundle = make_bundle([source], [locate(1, QUOTE, document)])
    return bundle.model_dump(mode="json")  # type: ignore[no-any-return]


def with_quote(folder: Path, **fields: Any) -> str:
    raw = good_bundle(folder)
    raw["quotes"][0].update(fields)
    return json.dumps(raw)


def with_child(folder: Path, count: int = 1, **fields: Any) -> str:
    """The good bundle with ``count`` children holding its quote, ``fields`` set on each."""
    raw = good_bundle(folder)
    child = {"iteration": 1, "root": "worker", "folder": "children/01-worker/1.1", "level": 1}
    child |= {"agent": "worker/1.1", "status": "answered", "quotes": raw["quotes"]} | fields
    raw["children"] = [child] * count
    return json.dumps(raw)


def nested(depth: int) -> str:
    return '{"bundle_version": 1, "x": ' + "[" * depth + "]" * depth + "}"


CASES: dict[str, tuple[Any, str]] = {
    "nested 100000 deep": (lambda folder: nested(100_000), "nested deeper than 64 levels"),
    "nested 70 deep": (lambda folder: nested(70), "nested deeper than 64 levels"),
    "a 400-digit start": (
        lambda folder: with_quote(folder, start=7_777_777).replace("7777777", "9" * 400),
        "past 64 bits",
    ),
    "2**63": (
        lambda folder: with_quote(folder, end=7_777_777).replace("7777777", str(2**63)),
        "past 64 bits",
    ),
    "a negative start": (lambda folder: with_quote(folder, start=-5), "quotes.0.start"),
    "a negative page": (lambda folder: with_quote(folder, page=-1), "quotes.0.page"),
    "a reversed span": (lambda folder: with_quote(folder, start=20, end=4), "starts at 20"),
    "a reversed page span": (
        lambda folder: with_quote(folder, page=1, page_start=9, page_end=2),
        "page span starts at 9",
    ),
    "a quote too long": (
        lambda folder: with_quote(folder, text="x" * (MAX_QUOTE_CHARS + 1)),
        "quotes.0.text",
    ),
    "too many quotes": (
        lambda folder: json.dumps(
            {**good_bundle(folder), "quotes": [good_bundle(folder)["quotes"][0]] * (MAX_ITEMS + 1)}
        ),
        "quotes:",
    ),
    "a child's reversed span": (
        lambda folder: with_child(
            folder, quotes=[{"number": 1, "text": "x", "found": "exact", "start": 9, "end": 2}]
        ),
        "starts at 9",
    ),
    "a child 17 levels down": (lambda folder: with_child(folder, level=17), "children.0.level"),
    "a child's unknown ending": (lambda folder: with_child(folder, status="won"), "status"),
    "a child's prompt too long": (
        lambda folder: with_child(folder, prompt="x" * 10_000_001),
        "children.0.prompt",
    ),
    "children's quotes past the bound together": (
        lambda folder: with_child(
            folder, count=2, quotes=[{"number": 1, "text": "x", "found": "exact"}] * 6000
        ),
        "its children hold 12000 quotes",
    ),
    "NaN": (
        lambda folder: with_quote(folder, page=7_777_777).replace("7777777", "NaN"),
        "NaN is not a JSON number",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_bundle_is_refused_in_one_line_with_exit_2(
    case: str, tmp_path: Path, clean_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    make, message = CASES[case]
    bundle = tmp_path / "bundle.json"
    bundle.write_text(make(tmp_path), encoding="utf-8")
    code = run_cli(["verify", str(bundle), "--out-dir", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == ExitCode.USAGE, err
    assert out == ""
    assert len(err.splitlines()) == 1 and message in err, err
    assert len(err) < 600
    assert not (tmp_path / "out").exists()


def test_json_gives_the_refusal_as_one_object(
    tmp_path: Path, clean_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(with_quote(tmp_path, start=-1), encoding="utf-8")
    code = run_cli(["verify", str(bundle), "--json", "--out-dir", str(tmp_path / "out")])
    out, _err = capsys.readouterr()
    assert code == ExitCode.USAGE
    assert json.loads(out)["exitCode"] == ExitCode.USAGE


def test_a_bundle_that_is_not_a_regular_file_is_refused_without_opening_it(
    tmp_path: Path, clean_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "bundle.json"
    os.mkfifo(fifo)  # opening it to read would wait for a writer for ever
    code = run_cli(["verify", str(fifo), "--out-dir", str(tmp_path / "out")])
    _out, err = capsys.readouterr()
    assert code == ExitCode.USAGE
    assert "is not a regular file" in err


def test_the_bundle_of_a_run_is_within_the_bounds(tmp_path: Path) -> None:
    """The bounds refuse nothing a run writes: the test bundle reads back whole."""
    from ralph_tui.reports.bundle import EvidenceBundle

    raw = good_bundle(tmp_path)
    assert EvidenceBundle.model_validate(raw).model_dump(mode="json") == raw
