"""JSON from elsewhere is parsed within bounds, and refused in one line past them."""

from __future__ import annotations

import pytest

from ralph_tui.errors import ExitCode
from ralph_tui.json_input import MAX_DEPTH, MAX_INT, JsonRefused, parse_json, read_json


def test_ordinary_json_parses() -> None:
    assert parse_json('{"a": [1, 2.5, "x", null, true], "b": -3}', "t") == {
        "a": [1, 2.5, "x", None, True],
        "b": -3,
    }


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("10" + "0" * 400, "past 64 bits"),
        (str(MAX_INT + 1), "past 64 bits"),
        (str(-MAX_INT - 2), "past 64 bits"),
        ("1e400", "range of a double"),
        ("[" * 100_000 + "]" * 100_000, f"nested deeper than {MAX_DEPTH}"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH}"),
        ('{"a": ', "not valid JSON"),
        (b"\xff\xfe{", "not valid JSON"),
    ],
)
def test_past_the_bounds_is_refused_in_one_line(text: str | bytes, says: str) -> None:
    with pytest.raises(JsonRefused) as caught:
        parse_json(text, "bundle.json")
    line = caught.value.one_line()
    assert line.startswith("bundle.json: ") and says in line
    assert "\n" not in line and len(line) < 300
    assert caught.value.exit_code == ExitCode.USAGE


def test_the_bounds_themselves_are_taken() -> None:
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(nested, "t") is not None
    assert parse_json(str(MAX_INT), "t") == MAX_INT
    assert parse_json(str(-MAX_INT), "t") == -MAX_INT


def test_a_file_past_its_size_is_refused_before_it_is_read(tmp_path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + "0," * 1000 + "0]")
    with pytest.raises(JsonRefused, match="past the 100 bytes"):
        read_json(path, max_bytes=100)
    assert len(read_json(path, max_bytes=10_000)) == 1001


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_the_non_finite_constants_python_accepts_are_refused(constant: str) -> None:
    with pytest.raises(JsonRefused, match=f"{constant} is not a JSON number"):
        parse_json(f'{{"x": [1, {constant}]}}', "test.json")
