"""The evidence report and bundle of a run with child agents show their tree (what each was
asked, over what, how it ended, its located quotes), and ``verify`` checks a child's quotes
as it checks the answer's; a session folder's crafted child records stay within a bundle's
bounds."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from lxml import html as lxml_html

from ralph_tui.cli import run_cli
from ralph_tui.errors import ExitCode
from ralph_tui.reports.bundle import MAX_ITEMS
from ralph_tui.reports.schema import bundle_schema
from ralph_tui.traces.session_ids import session_dir
from tests.recursion.test_offline_children import QUERY, TEXTS

pytestmark = pytest.mark.usefixtures("clean_env")


def folder_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int = 2) -> str:
    folder = tmp_path / "plants"
    folder.mkdir(exist_ok=True)
    for name, text in TEXTS.items():
        (folder / name).write_text(text + "\n")
    argv = [
        "run",
        "--mode",
        "qa",
        "--provider",
        "offline",
        "--max-depth",
        str(depth),
        "--query",
        QUERY,
    ]
    run_cli([*argv, "--doc", str(folder), "--out", str(tmp_path / "out"), "--json"])
    return str(json.loads(capsys.readouterr().out)["sessionId"])


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], session: str, fmt: str) -> str:
    assert run_cli(["report", session, "--out", str(tmp_path / "out"), "--format", fmt]) == 0
    return capsys.readouterr().out


def test_the_bundle_and_reports_show_the_tree_and_verify_checks_its_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = folder_run(tmp_path, capsys)
    bundle = json.loads(report(tmp_path, capsys, session, "json"))
    jsonschema.validate(bundle, bundle_schema())
    children = bundle["children"]
    assert [c["agent"] for c in children] == [f"worker/1.{n}" for n in range(1, 5)]
    first = children[0]
    assert (first["level"], first["status"], first["prompt"]) == (1, "answered", QUERY)
    assert first["context"] == "1 document: plants/a.md"
    assert first["folder"] == "children/01-worker/1.1"
    [quote] = first["quotes"]
    assert quote["source"] == "plants/a.md" and quote["found"] == "exact"
    assert children[3]["quotes"] == [] and bundle["children_cut"] is False

    markdown = report(tmp_path, capsys, session, "md")
    assert "## Child agents" in markdown
    assert "- **worker/1.2** — answered in 2 steps, over 1 document: plants/b.md" in markdown
    assert "  - quote: plants/b.md, characters 0–" in markdown

    page = lxml_html.document_fromstring(report(tmp_path, capsys, session, "html"))
    items = page.xpath('//section[@id="children"]//li[@class="child"]')
    assert [item.xpath("string(h3)") for item in items] == [c["agent"] for c in children]
    assert "Gamma plant" in items[2].text_content()

    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    argv = ["verify", str(path), "--out-dir", str(tmp_path / "out"), "--json"]
    assert run_cli(argv) == ExitCode.OK
    checked = json.loads(capsys.readouterr().out)
    agents = [(q["agent"], q["status"]) for q in checked["child_quotes"]]
    assert agents == [(f"worker/1.{n}", "holds") for n in (1, 2, 3)]
    assert checked["child_counts"] == {"holds": 3}


def test_a_child_quote_that_no_longer_holds_fails_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = folder_run(tmp_path, capsys)
    bundle = json.loads(report(tmp_path, capsys, session, "json"))
    bundle["children"][3]["quotes"] = [dict(bundle["children"][0]["quotes"][0], start=1, end=9)]
    (tmp_path / "plants" / "a.md").write_text("Alpha plant staff check it hourly.\n")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    assert run_cli(["verify", str(path), "--out-dir", str(tmp_path / "out")]) == ExitCode.FAILED
    said = capsys.readouterr().out
    assert "quotes of child agents:" in said
    assert "worker/1.4 [1]" in said and "worker/1.1 [1]" in said
    assert said.rstrip().endswith("not every quote holds")


def test_a_run_without_children_has_none_in_its_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = folder_run(tmp_path, capsys, depth=1)
    bundle = json.loads(report(tmp_path, capsys, session, "json"))
    assert bundle["children"] == []
    assert "Child agents" not in report(tmp_path, capsys, session, "md")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    assert run_cli(["verify", str(path), "--out-dir", str(tmp_path / "out")]) == ExitCode.OK
    assert "child agents" not in capsys.readouterr().out


def test_crafted_child_records_stay_within_a_bundles_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = folder_run(tmp_path, capsys)
    kept = session_dir(tmp_path / "out", session) / "children" / "01-worker"
    record = json.loads((kept / "1.1" / "child.json").read_text())
    good = record["quotes"][0]
    record["quotes"] = [good | {"start": 9, "end": 2}] + [good] * (MAX_ITEMS + 5)
    (kept / "1.1" / "child.json").write_text(json.dumps(record))
    (kept / "1.2" / "child.json").write_text(json.dumps(record | {"steps": -3}))
    (kept / "1.3" / "child.json").write_text('{"agent": ')

    bundle = json.loads(report(tmp_path, capsys, session, "json"))
    jsonschema.validate(bundle, bundle_schema())
    first, second, third, _ = bundle["children"]
    assert len(first["quotes"]) == MAX_ITEMS, "the reversed span is left out, the rest cut"
    assert bundle["children_cut"] is True
    assert (
        second["status"] == "unreadable"
        and "out of an evidence bundle's bounds" in (second["problem"])
    )
    assert third["status"] == "unreadable" and "not valid JSON" in third["problem"]
    markdown = report(tmp_path, capsys, session, "md")
    assert "its record could not be read" in markdown
    assert "Some child agents or their quotes are left out" in markdown
