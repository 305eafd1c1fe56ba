"""The scripted bounded reader of ``bench/recursion_reader.py``, at a small size: the same
policy answers with every fact at depth 2 and is capped at depth 1 under the same steps and
token cap, the tree's steps bound its children, and it recognises only what its cells
printed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from recursion_reader import FACTS, ask, make_folder, recognised


def test_facts_are_recognised_only_in_text_shown_and_distractors_are_not() -> None:
    target = "The chlorine residual target at the Unit01 plant is set by the state board."
    assert recognised(f"plants/plant-03.md : {FACTS[3]}\n{target}") == [FACTS[3]]
    assert recognised("no such sentence") == []


async def test_under_the_same_steps_and_token_cap_depth_two_answers_and_depth_one_does_not(
    tmp_path: Path,
) -> None:
    folder = make_folder(tmp_path, 20, 100)
    depth1 = await ask(folder, 1, 80, token_cap=90_000)
    depth2 = await ask(folder, 2, 80, token_cap=90_000)
    assert depth2["status"] == "answered" and depth2["factsInAnswer"] == 3, depth2["answer"]
    assert depth1["status"] == "capped" and depth1["factsInAnswer"] == 0
    assert depth2["tokens"] < 90_000 <= depth1["tokens"]
    assert depth2["stepsTaken"] <= 80 and depth2["agents"] == 21


async def test_the_trees_steps_bound_its_children(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, 17, 40)
    depth2 = await ask(folder, 2, 6)
    assert depth2["stepsTaken"] <= 6
    assert depth2["factsInAnswer"] < 3, "six steps cannot read seventeen documents"
