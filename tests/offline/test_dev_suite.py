"""The offline baseline's dev suite: questions and tasks over real documents Debian ships
(``data/``, see its README), each run through the real runner and sandbox in both inner
modes. An answerable one must pass (its quotes verbatim, as the runner's own checks demand)
and name what answers it; one about something the document never mentions must fail, with
an honest answer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Case:
    """One question or task, and what its output must hold when it is answerable."""

    mode: str
    document: str
    query: str
    names: str | None
    """Text the passing output must hold; ``None``: the run must fail."""
    leaves_out: str | None = None
    """Text the output must not hold."""
    too_few: bool = False
    """Fewer sentences answer it than the three lines an answer needs: the run fails, its
    first line the sentence that answers, none padding it out with sentences that don't."""


CASES = [
    Case("qa", "GPL-3.txt", "When does the license terminate?", "terminated"),
    Case(
        "qa",
        "Apache-2.0.txt",
        "When do the patent licenses granted under this License terminate?",
        "shall terminate as of the date such litigation is filed",
        too_few=True,
    ),
    Case("qa", "libtasn1.info.txt", "What does asn1Coding generate?", "DER encoding"),
    Case("qa", "bzip2-manual.html", "What does bzip2recover do with a damaged file?", "blocks"),
    Case(
        "task",
        "bzip2-manual.html",
        "Summarise how bzip2 recovers data from damaged files",
        "bzip2recover",
        leaves_out="LIABLE",
    ),
    Case("qa", "GPL-3.txt", "What is the maximum bitrate of the audio codec?", None),
    Case("qa", "Apache-2.0.txt", "Which Python version does the interpreter require?", None),
    Case("qa", "libtasn1.info.txt", "How are garbage collector pauses tuned?", None),
    Case(
        "task", "bzip2-manual.html", "Summarise how bzip2 encrypts archives with a password", None
    ),
]


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.mode}:{case.query}")
def test_the_dev_suite(
    case: Case, inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", case.mode,
                    "--inner", inner, "--query", case.query, "--doc", str(DATA / case.document),
                    "--out", str(tmp_path / "out"), "--maxIters", "2"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    output = result["output"]
    text = str(output.get("answer") or output.get("output"))
    if case.too_few:
        assert (code, result["status"]) == (1, "failed"), text
        assert case.names in " ".join(text.splitlines()[0].split()), text
        assert len(text.splitlines()) < 3, "no line padding the answer out"
        return
    if case.names is None:
        assert (code, result["status"]) == (1, "failed"), text
        assert "does not address" in text or "no whole passage" in text, text
        return
    assert (code, result["status"]) == (0, "passed"), text
    assert case.names in " ".join(text.split()), text
    assert case.leaves_out is None or case.leaves_out not in text
