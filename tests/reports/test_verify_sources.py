"""A bundle's paths are hints, not orders: ``ralph-tui verify`` of a bundle from someone
else reads no file outside the bundle's folder and the working folder unless told to
(``--trust-paths``), never a special file (``/proc``, a FIFO), and shows windows around the
quotes, never whole sources, in the text view and in ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph_tui.evidence import QuoteLocation
from ralph_tui.reports.bundle import BundleSource
from tests.reports.bundles import locate, make_bundle, read_source, write_bundle

ROOT = Path(__file__).parents[2]
SECRET = "Host prod\n  IdentityFile ~/.ssh/id_prod\n" + "secret-line " * 400 + "END-OF-SECRET\n"


def verify(bundle: Path, *flags: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """``ralph-tui verify`` in a process of its own, in ``cwd`` (the bundle's folder)."""
    process = subprocess.run(
        [sys.executable, "-m", "ralph_tui", "verify", str(bundle), *flags],
        cwd=cwd or bundle.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return process.returncode, process.stdout, process.stderr


def hostile(folder: Path, path: str, name: str = "config", text: str = "Host") -> Path:
    """A bundle whose one source is saved at ``path``, its quote spanning 0 to 1 MB."""
    folder.mkdir(parents=True, exist_ok=True)
    source = BundleSource(name=name, kind="file", path=path)
    quote = QuoteLocation(number=1, text=text, found="exact", source=name, start=0, end=1_000_000)
    return write_bundle(folder / "bundle.json", make_bundle([source], [quote]))


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the folder the bundle is received in."""
    path = tmp_path / "home" / ".ssh" / "config"
    path.parent.mkdir(parents=True)
    path.write_text(SECRET, encoding="utf-8")
    return path


def assert_not_read(out: str, *secrets: str) -> None:
    for text in secrets:
        assert text not in out


@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_an_absolute_path_outside_the_bundles_folder_is_not_read(
    tmp_path: Path, clean_env: None, secret: Path, flags: tuple[str, ...]
) -> None:
    bundle = hostile(tmp_path / "received", str(secret))
    code, out, err = verify(bundle, "--out-dir", str(tmp_path / "out"), *flags)
    assert code == 1, err
    assert_not_read(out, "IdentityFile", "secret-line", "END-OF-SECRET")
    assert (
        "outside the bundle's folder and the working folder, or hidden in them, and its bytes"
        in out
    )
    assert "--trust-paths" in out


def test_a_relative_path_that_climbs_out_of_the_bundles_folder_is_not_read(
    tmp_path: Path, clean_env: None, secret: Path
) -> None:
    bundle = hostile(tmp_path / "received", "../home/.ssh/config")
    code, out, _err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    assert code == 1
    assert_not_read(out, "IdentityFile", "secret-line")
    [source] = json.loads(out)["sources"]
    assert source["status"] == "missing" and "not read" in source["detail"]


def test_a_link_beside_the_bundle_that_leads_out_is_not_followed(
    tmp_path: Path, clean_env: None, secret: Path
) -> None:
    bundle = hostile(tmp_path / "received", "/elsewhere/config")
    (bundle.parent / "config").symlink_to(secret)
    code, out, _err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    assert code == 1
    assert_not_read(out, "IdentityFile", "secret-line")


def test_with_trust_paths_the_saved_path_is_read_and_only_the_quote_is_shown(
    tmp_path: Path, clean_env: None, secret: Path
) -> None:
    bundle = hostile(tmp_path / "received", str(secret), text="Host prod")
    code, out, err = verify(bundle, "--json", "--trust-paths", "--out-dir", str(tmp_path / "out"))
    assert code == 1, err
    report = json.loads(out)
    [source] = report["sources"]
    assert source["status"] == "read" and source["path_from"] == "bundle"
    [quote] = report["quotes"]
    assert quote["status"] == "moved" and quote["found"]["text"] == "Host prod"
    assert quote["saved"] == {**quote["saved"], "start": 0, "end": 1_000_000, "text": ""}
    assert_not_read(out, "IdentityFile", "secret-line", "END-OF-SECRET")


def test_spans_that_tile_a_file_show_none_of_it(tmp_path: Path, clean_env: None) -> None:
    """Quotes that are not where their spans say show nothing of what is there, with a
    closest passage no longer than the quote and a margin."""
    folder = tmp_path / "received"
    folder.mkdir()
    (folder / "notes.txt").write_text(SECRET, encoding="utf-8")
    source = BundleSource(name="notes.txt", kind="file", path=str(folder / "notes.txt"))
    quotes = [
        QuoteLocation(
            number=n, text="zebra", found="exact", source="notes.txt", start=s, end=s + 500
        )
        for n, s in enumerate(range(0, len(SECRET), 500), 1)
    ]
    bundle = write_bundle(folder / "bundle.json", make_bundle([source], quotes))
    code, out, err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    assert code == 1, err
    for quote in json.loads(out)["quotes"]:
        assert quote["saved"]["text"] == ""
        assert quote["closest"] is None or len(quote["closest"]["text"]) <= len("zebra") + 200
    assert_not_read(out, "IdentityFile", "END-OF-SECRET")


def test_a_hidden_file_in_the_working_folder_is_not_read(
    tmp_path: Path, clean_env: None, secret: Path
) -> None:
    """Run from one's home, a bundle in Downloads naming ~/.ssh/config reads nothing."""
    home = secret.parents[1]
    bundle = hostile(home / "Downloads", str(secret))
    code, out, _err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"), cwd=home)
    assert code == 1
    assert_not_read(out, "IdentityFile", "secret-line")
    [source] = json.loads(out)["sources"]
    assert source["status"] == "missing" and "hidden in them" in source["detail"]
    bundle = hostile(home / "Downloads", "/elsewhere/.ssh/config", name=".ssh/config")
    code, out, _err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"), cwd=home)
    assert_not_read(out, "IdentityFile", "secret-line")


@pytest.mark.parametrize("path", ["/proc/self/status", "/proc/self/environ", "/dev/zero"])
def test_a_system_file_is_never_read_even_with_trust_paths(
    tmp_path: Path, clean_env: None, path: str
) -> None:
    bundle = hostile(tmp_path / "received", path, name="status", text="Name:")
    code, out, err = verify(bundle, "--json", "--trust-paths", "--out-dir", str(tmp_path / "out"))
    assert code == 1, err
    assert_not_read(out, "VmRSS", "Pid:", "PYTHONPATH")
    [source] = json.loads(out)["sources"]
    assert source["status"] == "missing"
    assert "never read" in source["detail"]


def test_a_fifo_beside_the_bundle_is_never_opened(tmp_path: Path, clean_env: None) -> None:
    folder = tmp_path / "received"
    folder.mkdir()
    os.mkfifo(folder / "manual.md")  # opening it would wait for a writer for ever
    bundle = hostile(folder, str(folder / "manual.md"), name="manual.md")
    code, out, err = verify(bundle, "--json", "--trust-paths", "--out-dir", str(tmp_path / "out"))
    assert code == 1, err
    [source] = json.loads(out)["sources"]
    assert source["status"] == "missing" and "is a FIFO, not a regular file" in source["detail"]


def test_a_source_sent_with_the_bundle_is_found_beside_it_by_name(
    tmp_path: Path, clean_env: None
) -> None:
    """A colleague's bundle, with the document beside it: its saved path (on their machine)
    is not where it is here, its name is."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "manual.md").write_text("The pumps are greased every 500 hours.\n")
    source, document = read_source(theirs / "manual.md")
    received = tmp_path / "received"
    received.mkdir()
    (theirs / "manual.md").rename(received / "manual.md")
    bundle = write_bundle(
        received / "bundle.json",
        make_bundle([source], [locate(1, "greased every 500 hours", document)]),
    )
    code, out, err = verify(bundle, "--out-dir", str(tmp_path / "out"))
    assert code == 0, out + err
    assert f"manual.md: read from {received / 'manual.md'} (by its name, beside the bundle)" in out


def test_ones_own_bundle_written_elsewhere_reads_the_documents_of_the_working_folder(
    tmp_path: Path, clean_env: None
) -> None:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "manual.md").write_text("Filters are backwashed every 48 hours.\n")
    source, document = read_source(project / "docs" / "manual.md")
    bundle = write_bundle(
        tmp_path / "answer.json",
        make_bundle([source], [locate(1, "backwashed every 48 hours", document)]),
    )
    code, out, err = verify(bundle, "--out-dir", str(tmp_path / "out"), cwd=project)
    assert code == 0, out + err
    assert "(the path saved in the bundle)" in out


def test_ones_own_bundle_reads_documents_that_stayed_where_they_were_wherever_that_is(
    tmp_path: Path, clean_env: None
) -> None:
    """A saved path outside both folders is read when its bytes are the ones the bundle
    saved: whoever wrote the bundle knew them, so nothing is told that was not known."""
    (tmp_path / "downloads").mkdir()
    manual = tmp_path / "downloads" / "manual.md"
    manual.write_text("Filters are backwashed every 48 hours.\n")
    source, document = read_source(manual)
    project = tmp_path / "project"
    project.mkdir()
    bundle = write_bundle(
        project / "answer.json",
        make_bundle([source], [locate(1, "backwashed every 48 hours", document)]),
    )
    code, out, err = verify(bundle, "--out-dir", str(tmp_path / "out"), cwd=project)
    assert code == 0, out + err
    assert "its bytes the ones the bundle saved" in out

    manual.write_text("Filters are backwashed every 72 hours.\n")
    code, out, err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"), cwd=project)
    assert code == 1, out + err
    [checked] = json.loads(out)["sources"]
    assert checked["status"] == "missing" and "--trust-paths" in checked["detail"]
    assert "72 hours" not in out


def test_a_bundle_that_guesses_a_files_hash_wrong_learns_nothing_of_it(
    tmp_path: Path, clean_env: None, secret: Path
) -> None:
    folder = tmp_path / "received"
    folder.mkdir()
    source = BundleSource(name="config", kind="file", path=str(secret), sha256="0" * 64)
    quote = QuoteLocation(number=1, text="Host", found="exact", source="config", start=0, end=4)
    bundle = write_bundle(folder / "bundle.json", make_bundle([source], [quote]))
    code, out, _err = verify(bundle, "--json", "--out-dir", str(tmp_path / "out"))
    assert code == 1
    assert_not_read(out, "IdentityFile", "secret-line", "Host prod")
    assert json.loads(out)["quotes"][0]["status"] == "source_missing"


@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_control_characters_in_a_bundle_do_not_reach_the_terminal(
    tmp_path: Path, clean_env: None, flags: tuple[str, ...]
) -> None:
    name = "\x1b]0;owned\x07\x1b[31mred\u202enoitces\x9b2J"
    bundle = hostile(tmp_path / "received", f"/nowhere/{name}", name=name)
    raw = json.loads(bundle.read_text())
    raw["session_id"] = "\x1b[2Jcleared"
    bundle.write_text(json.dumps(raw))
    code, out, err = verify(bundle, *flags, "--out-dir", str(tmp_path / "out"))
    assert code == 1, err
    for char in ("\x1b", "\x07", "\u202e", "\x9b"):
        assert char not in out
    if flags:
        assert json.loads(out)["sources"][0]["name"] == name
    else:
        assert "\\u001b]0;owned" in out
