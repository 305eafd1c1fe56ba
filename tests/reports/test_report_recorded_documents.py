"""A session folder may come from elsewhere: ``ralph-tui report`` re-reads its recorded
documents to show each quote in its passage, and must not put a file of this machine into a
report to be shared because a crafted record names it (with quote spans that tile it)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents import Limits
from ralph_tui.documents.corpus import read_one
from ralph_tui.evidence import QuoteLocation
from ralph_tui.reports.formats import REPORT_FORMATS, ReportFormat
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

pytestmark = pytest.mark.usefixtures("clean_env")

SECRET = "Host prod\n  IdentityFile ~/.ssh/id_prod\n  password-is hunter2-secret\n"


def session_naming(tmp_path: Path, path: Path, sha256: str | None) -> tuple[Path, str]:
    """A finished session whose record lists ``path`` as its document, with quotes whose
    spans tile the first 60 characters of it."""
    quotes = [
        QuoteLocation(number=n + 1, text="x", found="exact", source="notes.md",
                      start=n * 10, end=n * 10 + 10)
        for n in range(6)
    ]  # fmt: skip
    document = {"name": "notes.md", "path": str(path), "format": "text", "converter": "text"}
    if sha256 is not None:
        document["sha256"] = sha256
    out = tmp_path / "out"
    store = TraceStore(out)
    handle = store.create_session(
        SessionRecord(mode="qa", query="q", doc_path=str(path), created_at=time.time(),
                      settings={"provider": "offline"}, documents=[document])
    )  # fmt: skip
    handle.write_iteration(
        IterationTrace(iteration=1, query="q", output={"answer": "- a", "evidence": ["x"]},
                       passed=True, quotes=quotes)
    )  # fmt: skip
    handle.finish("passed")
    store.close()
    return out, handle.session_id


def report(out: Path, session_id: str, fmt: ReportFormat, target: Path) -> str:
    assert (
        run_cli(["report", session_id, "--out", str(out), "--format", fmt, "-o", str(target)]) == 0
    )
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
@pytest.mark.parametrize("recorded_hash", [None, "0" * 64])
def test_a_recorded_path_whose_bytes_are_not_the_recorded_ones_is_not_shown(
    tmp_path: Path, fmt: ReportFormat, recorded_hash: str | None
) -> None:
    secret = tmp_path / "elsewhere" / "config"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    out, session_id = session_naming(tmp_path, secret, recorded_hash)
    text = report(out, session_id, fmt, tmp_path / f"report.{fmt}")
    for piece in ("hunter2", "IdentityFile", "Host prod"):
        assert piece not in text


@pytest.mark.parametrize("special", ["/dev/zero", "/proc/self/environ", "fifo"])
def test_a_recorded_special_file_is_never_read(tmp_path: Path, special: str) -> None:
    path = Path(special)
    if special == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)  # opening it to read would wait for a writer forever
    out, session_id = session_naming(tmp_path, path, "0" * 64)
    bundle = json.loads(report(out, session_id, "json", tmp_path / "report.json"))
    assert bundle["passages"] == []


def test_the_sessions_own_document_is_still_shown_in_its_passages(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("The pumps are greased every 500 hours of running, by the night shift.\n")
    sha256 = read_one(path, "notes.md", Limits()).sha256
    out, session_id = session_naming(tmp_path, path, sha256)
    bundle = json.loads(report(out, session_id, "json", tmp_path / "report.json"))
    assert bundle["passages"] and "greased every 500 hours" in bundle["passages"][0]["text"]
