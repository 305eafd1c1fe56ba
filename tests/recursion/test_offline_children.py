"""The keyless baseline over a folder with ``--max-depth 2``: one child agent per document,
then a merge of their quotes, through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.agents.recursion import CHILD_CONTEXT
from ralph_tui.cli import run_cli
from ralph_tui.llm.offline import children

pytestmark = pytest.mark.usefixtures("clean_env")

TEXTS = {
    "a.md": "Alpha plant staff check the chlorine residual every hour. Alpha pumps draw water.",
    "b.md": "Beta plant checks the chlorine residual twice a day at the outlet. Beta uses sand.",
    "c.md": "Gamma plant has the chlorine residual checked weekly by the regional laboratory.",
    "d.md": "Delta plant stores spare pumps in its north shed.",
}
QUERY = "How often is the chlorine residual checked?"


def run(
    tmp_path: Path,
    depth: int,
    capsys: pytest.CaptureFixture[str],
    mode: str = "qa",
    inner: str = "rlm",
) -> dict[str, object]:
    folder = tmp_path / "plants"
    folder.mkdir(exist_ok=True)
    for name, text in TEXTS.items():
        (folder / name).write_text(text + "\n")
    out = tmp_path / f"out{depth}"
    argv = ["run", "--mode", mode, "--provider", "offline", "--max-depth", str(depth)]
    argv += ["--inner", inner]
    argv += ["--query", QUERY]
    code = run_cli([*argv, "--doc", str(folder), "--out", str(out), "--json"])
    captured = capsys.readouterr()
    outcome = json.loads(captured.out)
    assert code == outcome["exitCode"]
    assert run_cli(["sessions", "show", outcome["sessionId"], "--json", "--out", str(out)]) == 0
    outcome["shown"] = json.loads(capsys.readouterr().out)
    outcome["progress"] = captured.err
    return outcome


@pytest.mark.parametrize(("inner", "child_steps"), [("rlm", 2), ("lcm", 3)])
def test_one_child_per_document_then_a_merge_answers_from_three_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inner: str, child_steps: int
) -> None:
    """In the rlm mode the first cell asks the children; in the lcm mode its first call of
    the ``rlm_query_batched`` tool."""
    outcome = run(tmp_path, 2, capsys, inner=inner)
    assert outcome["status"] == "passed"
    sources = sorted(quote["source"] for quote in outcome["quotes"])  # type: ignore[attr-defined]
    assert sources == ["plants/a.md", "plants/b.md", "plants/c.md"]
    [tree] = outcome["shown"]["children"]  # type: ignore[index]
    records = [node["record"] for node in tree["children"]]
    assert [r["context"] for r in records] == [f"1 document: plants/{n}" for n in TEXTS]
    assert all(r["status"] == "answered" and r["prompt"] == QUERY for r in records)
    assert records[3]["answer"].startswith("- The document does not address this question")
    assert [len(r["quotes"]) for r in records] == [1, 1, 1, 0]
    assert f"child worker/1.4: answered in {child_steps} steps" in str(outcome["progress"])
    assert "worker done in" in str(outcome["progress"])
    assert "sub-calls 4/60" in str(outcome["progress"]), "each child is a sub-call"


def test_in_task_mode_the_doc_reader_asks_one_child_per_document_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run(tmp_path, 2, capsys, mode="task")
    assert outcome["status"] == "passed"
    [tree, *_] = outcome["shown"]["children"]  # type: ignore[index]
    assert tree["agent"] == "doc_reader" and len(tree["children"]) == 4
    brief = tree["children"][1]["record"]["output"]["passages"]
    assert brief == ["Beta plant checks the chlorine residual twice a day at the outlet."]


def test_at_depth_one_the_baseline_searches_the_folder_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run(tmp_path, 1, capsys)
    assert outcome["shown"]["children"] == []  # type: ignore[index]
    assert "child " not in str(outcome["progress"])


def test_the_baseline_knows_a_child_by_what_its_prompt_says() -> None:
    assert children.HANDED in CHILD_CONTEXT


def test_a_mode_that_does_not_nest_says_the_depth_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text(TEXTS["a.md"] + "\n")
    argv = ["run", "--mode", "qa", "--provider", "offline", "--inner", "direct", "--max-depth", "3"]
    argv += ["--query", QUERY, "--doc", str(tmp_path / "a.md"), "--out", str(tmp_path / "out")]
    run_cli([*argv, "--maxIters", "2"])
    err = capsys.readouterr().err
    said = "--max-depth 3 changes nothing in the direct inner mode: only the rlm and lcm modes"
    assert err.count(said) == 1


def test_the_python_api_gives_the_tree_of_a_run_and_of_a_session(tmp_path: Path) -> None:
    from ralph_tui import api

    folder = tmp_path / "plants"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text + "\n")
    out = tmp_path / "out"
    result = api.ask(QUERY, folder, provider="offline", max_depth=2, out_dir=out)
    [tree] = result.children
    assert [node.record.agent for node in tree.children if node.record] == [
        f"worker/1.{n}" for n in range(1, 5)
    ]
    assert api.session(result.session_id, out).children == result.children
