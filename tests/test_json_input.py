"""JSON from elsewhere is parsed within bounds, and refused in one line past them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def depth_of(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


SCALARS = st.none() | st.booleans() | st.integers(-(2**63) + 1, 2**63 - 1)
TEXTS = st.text(alphabet='[]{}"\\\\ab\\u00e9\\u2028', max_size=8)


def nested(depth: int) -> st.SearchStrategy[object]:
    leaf = SCALARS | TEXTS
    if depth == 0:
        return leaf
    inner = nested(depth - 1)
    return leaf | st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3)


@settings(max_examples=150, deadline=None)
@given(value=nested(4), wrap=st.integers(0, MAX_DEPTH + 3), ascii_only=st.booleans())
def test_nesting_is_measured_whatever_the_strings_hold(
    value: object, wrap: int, ascii_only: bool
) -> None:
    for _ in range(wrap):
        value = [value] if wrap % 2 else {"[{": value}
    text = json.dumps(value, ensure_ascii=ascii_only)
    if depth_of(value) <= MAX_DEPTH:
        assert parse_json(text, "t") == value
    else:
        with pytest.raises(JsonRefused, match="nested deeper"):
            parse_json(text, "t")
