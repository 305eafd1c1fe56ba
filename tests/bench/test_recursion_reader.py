"""The scripted bounded reader of ``bench/recursion_reader.py``, at a small size: the same
policy answers with every fact at depth 2 and with fewer at depth 1 under the same step
limit, and it recognises only what its cells printed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from recursion_reader import FACTS, ask, make_folder, recognised


def test_facts_are_recognised_only_in_text_shown_and_distractors_are_not() -> None:
    target = "The chlorine residual target at the Unit01 plant is set by the state board."
    assert recognised(f"plants/plant-03.md : {FACTS[3]}\n{target}") == [FACTS[3]]
    assert recognised("no such sentence") == []


async def test_depth_two_finds_the_facts_depth_one_runs_out_of_steps(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, 17, 40)
    depth1 = await ask(folder, 1, 4)
    depth2 = await ask(folder, 2, 4)
    assert depth2["factsInAnswer"] == 3, depth2["answer"]
    assert depth1["factsInAnswer"] < 3, depth1["answer"]
    assert depth2["calls"] > depth1["calls"] and depth2["tokens"] > 0
