"""The keyless QA on the filings benchmark's questions; prints one JSON object.

Each question of ``bench/data/filings_questions.jsonl`` is asked of its filing with the
offline provider (``ralph-tui run --mode qa --provider offline --json``, one iteration, a
fresh out dir), through the real command in a child process. Per question: the run's status,
how many answer lines and how many of them the judge passed, whether the first line's quotes
come from a page that states the answer (``first_on_evidence``), whether any quote does, and
how many passed lines quote such a page. Totals over all questions.

    .venv/bin/python bench/keyless_filings.py [--folder ../shared/corpora/filings]
        [--questions bench/data/filings_questions.jsonl] [--only ID,ID]

Run from any directory: the child imports ralph_tui as this interpreter does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
QUESTIONS = HERE / "data" / "filings_questions.jsonl"
FOLDER = HERE.parent.parent / "shared" / "corpora" / "filings"


def ask(question: dict[str, Any], folder: Path) -> dict[str, Any]:
    """One keyless QA run of ``question`` over its filing, as the figures of it."""
    pages = set(question["pages"])
    with tempfile.TemporaryDirectory() as out:
        args = ["run", "--mode", "qa", "--provider", "offline", "--json", "--maxIters", "1",
                "--doc", str(folder / question["doc"]), "--query", question["question"],
                "--out", out]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "ralph_tui", *args], capture_output=True, text=True, cwd=out
        )
        seconds = time.perf_counter() - started
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"id": question["id"], "status": f"no JSON (exit {done.returncode})"}
    page_of = {quote["number"]: quote.get("page") for quote in result.get("quotes") or []}
    claims = result.get("claims") or []
    passed = [claim for claim in claims if claim.get("verdict") == "supported"]

    def on_evidence(claim: dict[str, Any]) -> bool:
        return bool({page_of.get(n) for n in claim.get("quotes") or []} & pages)

    return {
        "id": question["id"],
        "status": result.get("status"),
        "lines": len(claims),
        "passed_lines": len(passed),
        "first_on_evidence": bool(claims) and on_evidence(claims[0]),
        "any_on_evidence": bool(set(page_of.values()) & pages),
        "passed_lines_on_evidence": sum(on_evidence(claim) for claim in passed),
        "seconds": round(seconds, 1),
    }


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[str(row["status"])] = statuses.get(str(row["status"]), 0) + 1
    counted = ("lines", "passed_lines", "first_on_evidence", "any_on_evidence")
    sums = {name: sum(int(row.get(name, 0)) for row in rows) for name in counted}
    on_evidence = sum(int(row.get("passed_lines_on_evidence", 0)) for row in rows)
    return {"questions": len(rows), "statuses": statuses, **sums,
            "passed_lines_on_evidence": on_evidence}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--only", default="", help="question ids, comma-separated")
    args = parser.parse_args()
    wanted = {part for part in args.only.split(",") if part}
    questions = [json.loads(line) for line in args.questions.read_text().splitlines() if line]
    questions = [q for q in questions if not wanted or q["id"] in wanted]
    rows = []
    for question in questions:
        rows.append(ask(question, args.folder))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"totals": totals(rows), "questions": rows}, indent=1))


if __name__ == "__main__":
    main()
