"""``--max-depth``: how many levels of agents a run may nest (1, the default: no children)."""

from __future__ import annotations

import json

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import Settings

pytestmark = pytest.mark.usefixtures("clean_env")


def test_the_depth_is_one_unless_asked_and_the_flag_sets_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert Settings(_env_file=None).max_depth == 1
    assert run_cli(["config", "--json", "--max-depth", "3"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert (rows["max_depth"]["value"], rows["max_depth"]["source"]) == (3, "flag --max-depth")
    assert rows["max_depth"]["env"] == "RALPH_MAX_DEPTH"


@pytest.mark.parametrize("depth", ["0", "5", "two"])
def test_a_depth_out_of_bounds_is_refused_in_one_line(
    depth: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["config", "--max-depth", depth]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "max_depth" in err and "--max-depth" in err
