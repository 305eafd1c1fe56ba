"""Child agents' transcripts nest under the step that started them, and ``sessions show``
(text and ``--json``) shows the tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.traces.children import read_children
from ralph_tui.traces.session_ids import session_dir
from tests.recursion.agents_api import AgentsAPI, code
from tests.recursion.test_tree_budget import QUERY, qa, run


async def test_a_tree_of_children_is_kept_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = AgentsAPI()
    api.script(
        QUERY,
        code("print(rlm_query('CHILD-B: filters?', context=['b.md'])['answer'])"),
        qa("- Beta filters.", "Beta plant filters through sand beds renewed every spring."),
    )
    api.script(
        "CHILD-B",
        code("x = 1"),
        code("print(rlm_query('LEAF-B', context=['b.md'])['error'])"),
        qa("- Sand beds.", "filters through sand beds renewed every spring"),
    )
    api.script("LEAF-B", qa("- Spring.", "sand beds renewed every spring"))
    outcome = await run(api, tmp_path, max_depth=3)
    session = session_dir(tmp_path / "out", outcome.session_id)
    child = session / "children" / "01-worker" / "1.1"
    grandchild = child / "2.1"
    assert (child / "child.json").is_file() and (child / "context.jsonl").is_file()
    assert (grandchild / "child.json").is_file()
    kept = [json.loads(line) for line in (child / "context.jsonl").read_text().splitlines()]
    assert any("CHILD-B: filters?" in json.dumps(message) for message in kept)

    out = ["--out", str(tmp_path / "out")]
    assert run_cli(["sessions", "show", outcome.session_id, "--json", *out]) == 0
    [tree] = json.loads(capsys.readouterr().out)["children"]
    assert (tree["iteration"], tree["agent"]) == (1, "worker")
    [first] = tree["children"]
    record = first["record"]
    assert (first["name"], first["folder"]) == ("1.1", "children/01-worker/1.1")
    assert (record["agent"], record["step"], record["depth"], record["status"]) == (
        "worker/1.1", 1, 2, "answered",
    )  # fmt: skip
    assert (
        record["prompt"] == "CHILD-B: filters?" and record["context"] == "1 document: plants/b.md"
    )
    assert record["steps"] == 3 and record["answer"] == "- Sand beds."
    assert record["quotes"][0]["source"] == "plants/b.md"
    [second] = first["children"]
    assert (second["record"]["agent"], second["record"]["depth"]) == ("worker/1.1/2.1", 3)
    assert second["record"]["status"] == "answered"

    assert run_cli(["sessions", "show", outcome.session_id, *out]) == 0
    text = capsys.readouterr().out
    assert "child agents of iteration 1's worker:" in text
    assert (
        "  1.1 answered, 3 steps over 1 document: plants/b.md: CHILD-B: filters? -> - Sand beds."
        in text
    )
    assert "    2.1 answered, 1 step over" in text


def test_a_damaged_child_record_is_shown_as_such(tmp_path: Path) -> None:
    folder = tmp_path / "children" / "01-worker" / "2.1"
    folder.mkdir(parents=True)
    (folder / "child.json").write_text('{"agent": 3')
    (tmp_path / "children" / "01-worker" / "notachild").mkdir()
    [tree] = read_children(tmp_path)
    [node] = tree.children
    assert node.record is None and "children/01-worker/2.1/child.json: not valid JSON" in (
        node.problem or ""
    )
    assert read_children(tmp_path / "nothing") == []
