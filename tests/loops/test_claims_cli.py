"""The command line shows the answer's claims: each line's verdict, what its quotes lack,
and each quote it names by number with where it stands; ``run`` and ``sessions show``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.cli.evidence_text import claim_lines
from ralph_tui.evidence import Claim, QuoteLocation

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
QUERY = "How often are the filters backwashed, and what triggers an early backwash?"


def test_claim_lines_show_verdicts_missing_parts_and_located_quotes() -> None:
    claims = [
        Claim(line=1, text="Filters wash every 48 hours.", quotes=[2], verdict="supported"),
        Claim(
            line=2,
            text="Alarms go to the director.",
            quotes=[1, 3],
            verdict="partly_supported",
            missing="who the alarms go to",
        ),
        Claim(line=3, text="Not judged yet.", quotes=[4]),
    ]
    quotes = ["Alarms escalate\n after 10 minutes.", "Filters wash every 48 hours.", "Duty."]
    locations = [
        QuoteLocation(number=2, text=quotes[1], found="exact", source="manual.pdf", page=12),
        QuoteLocation(number=1, text=quotes[0], found="exact", source="notes.md"),
    ]
    assert claim_lines(claims, quotes, locations).splitlines() == [
        "  1. [supported] Filters wash every 48 hours.",
        "       quote 2: Filters wash every 48 hours.  [manual.pdf p. 12]",
        "  2. [partly supported] Alarms go to the director.",
        "       missing: who the alarms go to",
        "       quote 1: Alarms escalate after 10 minutes.  [notes.md]",
        "       quote 3: Duty.",
        "  3. [not judged] Not judged yet.",
        "       quote 4: (no such quote)",
    ]


def test_run_and_sessions_show_print_the_claims(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    args = ["run", "--provider", "offline", "--mode", "qa", "--query", QUERY]
    assert run_cli([*args, "--doc", str(SAMPLE), "--out", out]) == 0
    printed = capsys.readouterr().out
    session_id = re.search(r"session: (\S+)", printed).group(1)  # type: ignore[union-attr]
    assert "lineQuotes" not in printed, "the links are shown as the claims"
    claims = printed.split("\nclaims:\n", 1)[1]
    assert claims.startswith("  1. [supported] ")
    assert "       quote 1: " in claims and "       quote 2: " in claims

    assert run_cli(["sessions", "show", session_id, "--out", out]) == 0
    shown = capsys.readouterr().out
    assert "\nclaims:\n" + claims.rstrip("\n") in shown
