"""``ralph-tui verify BUNDLE``: a corpus left alone holds; an edited one names what moved and
what changed (with the passage there now); a deleted file is missing; a moved one is found
again through ``--doc``; the exit code says which; bad input is one line, exit 2, nothing
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli.app import run_cli
from ralph_tui.errors import ExitCode
from tests.reports.bundles import locate, make_bundle, read_source, write_bundle

MANUAL = """# Pumps and filters

The pumps are greased every 500 hours of running, with the grease named in table 2.

Filters are backwashed every 48 hours, or early when the pressure drop passes 0.5 bar.

In winter the intake heater must stay on below 4 degrees Celsius.
"""
NOTES = "Site notes.\n\nThe spare impeller is kept in the store room behind the workshop.\n"
GREASE = "The pumps are greased every 500 hours of running"
BACKWASH = "Filters are backwashed every 48 hours, or early when the pressure drop passes 0.5 bar."
HEATER = "In winter the intake heater must stay on below 4 degrees Celsius."
IMPELLER = "The spare impeller is kept in the store room behind the workshop."


@pytest.fixture
def corpus(tmp_path: Path, clean_env: None) -> Path:
    """A bundle of four quotes from two files, as saved; returns the bundle's path."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(MANUAL, encoding="utf-8")
    (docs / "notes.txt").write_text(NOTES, encoding="utf-8")
    manual, manual_doc = read_source(docs / "manual.md")
    notes, notes_doc = read_source(docs / "notes.txt")
    quotes = [
        locate(1, GREASE, manual_doc),
        locate(2, BACKWASH, manual_doc),
        locate(3, HEATER, manual_doc),
        locate(4, IMPELLER, notes_doc),
    ]
    return write_bundle(tmp_path / "bundle.json", make_bundle([manual, notes], quotes))


def verify(capsys: pytest.CaptureFixture[str], bundle: Path, *flags: str) -> tuple[int, str, str]:
    out_dir = bundle.parent / "out"
    code = run_cli(["verify", str(bundle), "--out-dir", str(out_dir), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def as_json(capsys: pytest.CaptureFixture[str], bundle: Path, *flags: str) -> dict:  # type: ignore[type-arg]
    code, out, _err = verify(capsys, bundle, "--json", *flags)
    [line] = out.splitlines()
    report = json.loads(line)
    assert code == (0 if report["ok"] else 1)
    return report  # type: ignore[no-any-return]


def test_an_unchanged_corpus_holds_every_quote(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = verify(capsys, corpus)
    assert code == ExitCode.OK, err
    assert out.count("  holds  ") == 4
    assert out.strip().endswith("4 quotes: 4 holds; every quote holds")
    assert f"manual.md: read from {corpus.parent / 'docs' / 'manual.md'}" in out
    assert "changed since the bundle" not in out


def test_an_edited_file_names_the_moved_and_the_changed_quote_with_the_text_there_now(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manual = corpus.parent / "docs" / "manual.md"
    edited = MANUAL.replace("# Pumps and filters\n", "# Pumps and filters\n\nRevised in May.\n")
    edited = edited.replace("every 48 hours", "every 72 hours")
    manual.write_text(edited, encoding="utf-8")

    code, out, _err = verify(capsys, corpus)
    assert code == ExitCode.FAILED
    assert "the file changed since the bundle (SHA-256" in out
    assert 'now there: "Filters are backwashed every 72 hours, or early' in out
    assert out.strip().endswith("4 quotes: 1 holds, 2 moved, 1 changed; not every quote holds")

    report = as_json(capsys, corpus)
    by_number = {quote["number"]: quote for quote in report["quotes"]}
    assert [by_number[n]["status"] for n in (1, 2, 3, 4)] == ["moved", "changed", "moved", "holds"]
    grease = by_number[1]
    assert grease["found"]["start"] == edited.index(GREASE)
    assert grease["found"]["start"] - grease["saved"]["start"] == len("\nRevised in May.\n")
    backwash = by_number[2]
    closest = backwash["closest"]
    assert edited[closest["start"] : closest["end"]] == closest["text"]
    assert closest["text"] == BACKWASH.replace("48", "72")
    assert 0.9 < backwash["similarity"] < 1
    assert report["counts"] == {"holds": 1, "moved": 2, "changed": 1}


def test_a_deleted_file_leaves_its_quotes_without_a_source(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (corpus.parent / "docs" / "notes.txt").unlink()
    code, out, _err = verify(capsys, corpus)
    assert code == ExitCode.FAILED
    assert "notes.txt: missing: not at" in out and "give its new place with --doc" in out
    report = as_json(capsys, corpus)
    assert [q["status"] for q in report["quotes"]] == ["holds"] * 3 + ["source_missing"]
    assert report["summary"].startswith("4 quotes: 3 holds, 1 source missing")


def test_a_moved_file_is_found_through_doc_by_name_or_by_its_sha256(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = corpus.parent / "elsewhere"
    elsewhere.mkdir()
    (corpus.parent / "docs" / "manual.md").rename(elsewhere / "manual.md")
    (corpus.parent / "docs" / "notes.txt").rename(elsewhere / "renamed-notes.txt")
    assert verify(capsys, corpus)[0] == ExitCode.FAILED

    code, out, err = verify(
        capsys,
        corpus,
        "--doc",
        str(elsewhere / "manual.md"),
        "--doc",
        str(elsewhere / "renamed-notes.txt"),
    )
    assert code == ExitCode.OK, out + err
    assert f"manual.md: read from {elsewhere / 'manual.md'} (--doc, matched by name)" in out
    assert (
        f"notes.txt: read from {elsewhere / 'renamed-notes.txt'} (--doc, matched by SHA-256)" in out
    )
    report = as_json(capsys, corpus, "--doc", str(elsewhere))
    assert [s["path_from"] for s in report["sources"]] == ["doc_name", "doc_sha256"]


def test_a_doc_that_matches_no_source_is_said_so(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = corpus.parent / "other.md"
    other.write_text("Nothing to do with the bundle at all.\n", encoding="utf-8")
    code, out, _err = verify(capsys, corpus, "--doc", str(other))
    assert code == ExitCode.OK
    assert f"note: --doc {other} is none of the bundle's sources" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "bundle not found"),
        ("{not json", "not valid JSON"),
        ('{"bundle_version": 2}', "is bundle version 2; this ralph-tui reads"),
        ('{"quotes": []}', "has no bundle_version"),
        ('{"bundle_version": 1, "session_id": "x"}', "is not a valid evidence bundle"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path,
    clean_env: None,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    message: str,
) -> None:
    bundle = tmp_path / "bundle.json"
    if content is not None:
        bundle.write_text(content, encoding="utf-8")
    code, out, err = verify(capsys, bundle)
    assert code == ExitCode.USAGE
    assert out == "" and len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "out").exists()


def test_a_doc_path_that_does_not_exist_is_bad_input(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = verify(capsys, corpus, "--doc", str(corpus.parent / "nowhere.md"), "--json")
    assert code == ExitCode.USAGE
    assert len(err.splitlines()) == 1 and "nowhere.md: no such file or folder" in err
    assert json.loads(out)["exitCode"] == ExitCode.USAGE
    assert not (corpus.parent / "out").exists()


def test_offline_an_external_page_is_not_checked_and_the_exit_code_says_so(
    tmp_path: Path, clean_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.reports.test_verify_api import PAGE_QUOTE, URL, page_bundle, page_html

    bundle = page_bundle(tmp_path, page_html(PAGE_QUOTE))
    code, out, _err = verify(capsys, bundle, "--offline")
    assert code == ExitCode.FAILED
    assert f"{URL}: not checked: not fetched (--offline)" in out
    assert "1  not checked" in out
    assert out.strip().endswith("1 quote: 1 not checked; not every quote holds")


def test_a_new_converter_is_noted_while_the_quotes_still_hold(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = json.loads(corpus.read_text(encoding="utf-8"))
    bundle["sources"][0]["converter"] = "an older converter 0.9"
    corpus.write_text(json.dumps(bundle), encoding="utf-8")
    code, out, _err = verify(capsys, corpus)
    assert code == ExitCode.OK
    assert "converted by utf-8 now, by an older converter 0.9 for the bundle" in out
    assert "changed since the bundle" not in out
