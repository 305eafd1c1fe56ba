"""Child agents (``rlm_query``): what nesting buys and what it costs; prints one JSON object.

Three measurements, each against its baseline in the same run:

- ``folder``: a QA question over a folder of ``--docs`` generated documents of ``--kb`` KB
  each, whose answer needs a fact from each of three of them (the rest hold sentences that
  share the question's words but answer something else). The keyless offline baseline runs
  it at ``--max-depth 1`` (one agent searches the whole folder) and at ``--max-depth 2`` (one
  child per document, then a merge), with the same budgets: which of the three facts each
  answer quotes, its status, and the tokens, calls and wall time of each (the tree's against
  the single agent's).
- ``start``: the start of a child (from ``child_started`` to its first cell running: its
  sandbox and its first step) against the root's (from the call to its first cell running),
  with a scripted model that answers at once, over the same folder; the median of
  ``--runs``. Goal: a child's start <= 1.5 x the root's.
- ``fan_out``: ``--children`` children at once (``rlm_query_batched``, concurrency as many),
  each sleeping in its first cell, with a scripted model: the peak number of sandbox
  processes and their peak resident memory together, sampled every 50 ms, and the processes
  left once the root returned (goal: 0).

    PYTHONPATH=. .venv/bin/python bench/recursion.py [--docs 20] [--kb 200] [--runs 5]
        [--children 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.agent_tree import AgentTree
from ralph_tui.agents.rlm import rlm_agent_forward
from ralph_tui.config import Settings
from ralph_tui.documents import read_corpus
from ralph_tui.events import BaseEvent, ChildStarted, SandboxExecuted
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.loops.context import DOCUMENTS_VARIABLE
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.recursion.agents_api import AgentsAPI, code

QUESTION = "How often is the chlorine residual checked at each treatment plant?"
FACTS = {
    3: "The Alder treatment plant has its chlorine residual checked every hour by the shift.",
    11: "At the Birch treatment plant the chlorine residual is checked twice a day at the outlet.",
    17: "The Cedar treatment plant chlorine residual is checked weekly by the county laboratory.",
}
DISTRACTORS = [
    "Chlorine deliveries to the {name} plant arrive in sealed drums each month.",
    "The {name} plant checks its pumps for vibration during the night shift.",
    "Residual sludge at the {name} plant is pressed and carted away.",
    "The {name} treatment plant logs every delivery in the gate book.",
]
WORDS = [
    "river",
    "intake",
    "valve",
    "basin",
    "settling",
    "sand",
    "gravel",
    "meter",
    "pressure",
    "operator",
    "crew",
    "shift",
    "report",
    "gauge",
    "screen",
    "channel",
    "tank",
    "pipe",
    "flow",
    "level",
    "storage",
    "reservoir",
    "pump",
    "motor",
]


def occasionally(rng: random.Random) -> bool:
    """This bench's distractor rate: about one sentence in fifty."""
    return rng.random() < 0.02


def document(
    number: int,
    size: int,
    rng: random.Random,
    distractors: list[str] = DISTRACTORS,
    is_distractor: Callable[[random.Random], bool] = occasionally,
) -> str:
    """About ``size`` characters of plant records: filler sentences, a few ``distractors``
    (where ``is_distractor`` says), and the document's fact (if it has one) somewhere in the
    middle."""
    name = f"Unit{number:02d}"
    parts: list[str] = []
    length = 0
    fact_at = size // 2
    while length < size:
        if number in FACTS and length >= fact_at and FACTS[number] not in parts:
            sentence = FACTS[number]
        elif is_distractor(rng):
            sentence = rng.choice(distractors).format(name=name)
        else:
            words = rng.sample(WORDS, 9)
            sentence = " ".join(words).capitalize() + "."
        parts.append(sentence)
        length += len(sentence) + 1
    paragraphs = [" ".join(parts[i : i + 6]) for i in range(0, len(parts), 6)]
    return f"# Records of {name}\n\n" + "\n\n".join(paragraphs) + "\n"


def make_folder(
    root: Path,
    docs: int,
    kb: int,
    distractors: list[str] = DISTRACTORS,
    is_distractor: Callable[[random.Random], bool] = occasionally,
) -> Path:
    """``docs`` documents of ``kb`` KB in ``root / "plants"`` (see ``document``)."""
    folder = root / "plants"
    folder.mkdir()
    rng = random.Random(7)
    for number in range(1, docs + 1):
        text = document(number, kb * 1000, rng, distractors, is_distractor)
        (folder / f"plant-{number:02d}.md").write_text(text)
    return folder


async def folder_run(folder: Path, out: Path, depth: int) -> dict[str, Any]:
    settings = Settings(
        _env_file=None, out_dir=out, provider="offline", max_depth=depth, max_iters=2
    )  # type: ignore[call-arg]
    request = RunRequest(mode="qa", query=QUESTION, doc_path=folder, settings=settings)
    started = time.perf_counter()
    outcome = await execute_run(request, on_event=lambda _e: None)
    evidence = (outcome.output or {}).get("evidence") or []
    found = [number for number, fact in FACTS.items() if any(q in fact for q in evidence)]
    return {
        "maxDepth": depth,
        "status": outcome.status,
        "factsQuoted": len(found),
        "quotes": len(evidence),
        "tokens": outcome.usage.input_tokens + outcome.usage.output_tokens,
        "calls": outcome.usage.calls,
        "wallS": round(time.perf_counter() - started, 2),
    }


class Answer(BaseModel):
    answer: str


def variables(folder: Path) -> dict[str, AgentVariable]:
    corpus = read_corpus([folder])
    return {
        "context": AgentVariable(corpus.text, "The documents."),
        "documents": AgentVariable(corpus.table, DOCUMENTS_VARIABLE),
    }


def spec(concurrency: int = 8) -> RLMSpec[Answer]:
    return RLMSpec(
        name="worker",
        definition="Answer.",
        output_model=Answer,
        sub_query_concurrency=concurrency,
        cell_timeout_s=60,
    )


async def one_start(folder_variables: dict[str, AgentVariable]) -> tuple[float, float]:
    """The root's start and its child's, in seconds."""
    api = AgentsAPI()
    root_code = code("rlm_query('CHILD-Q', context=['plant-01.md'])")
    api.script("ROOT-Q", root_code, {"answer": "x", "resultReady": True})
    api.script("CHILD-Q", code("x = 1"), {"answer": "y", "resultReady": True})
    events: list[BaseEvent] = []
    began = time.time()
    await rlm_agent_forward(
        api.client(),
        spec(),
        {"query": "ROOT-Q"},
        folder_variables,
        sub_client=OfflineClient(role="sub"),
        emit=events.append,
        tree=AgentTree.root(2),
    )
    cells = [e for e in events if isinstance(e, SandboxExecuted)]
    [child_started] = [e for e in events if isinstance(e, ChildStarted)]
    child_cell = next(c for c in cells if c.agent == "worker/1.1")
    root_cell = next(c for c in cells if c.agent == "worker")
    root_start = root_cell.ts - root_cell.duration_ms / 1000 - began
    child_start = child_cell.ts - child_cell.duration_ms / 1000 - child_started.ts
    return root_start, child_start


def sandbox_processes() -> list[int]:
    """The processes below this one (the sandboxes and their launchers)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    below, frontier = [], [os.getpid()]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        below.extend(children)
        frontier.extend(children)
    return below


def resident_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


async def fan_out(folder_variables: dict[str, AgentVariable], children: int) -> dict[str, Any]:
    names = [row["name"] for row in folder_variables["documents"].value]
    api = AgentsAPI()
    items = [[f"KID-{n:03d}", [names[n % len(names)]]] for n in range(children)]
    api.script(
        "ROOT-Q",
        code(f"rs = rlm_query_batched({items!r})\nprint(sum(r['error'] is None for r in rs))"),
        {"answer": "x", "resultReady": True},
    )
    for name, _ in items:
        api.script(name, code("import time\ntime.sleep(2)"), {"answer": "y", "resultReady": True})
    peak = {"processes": 0, "residentKb": 0}
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            pids = sandbox_processes()
            peak["processes"] = max(peak["processes"], len(pids))
            peak["residentKb"] = max(peak["residentKb"], resident_kb(pids))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    started = time.perf_counter()
    await rlm_agent_forward(
        api.client(),
        spec(concurrency=children),
        {"query": "ROOT-Q"},
        folder_variables,
        sub_client=OfflineClient(role="sub"),
        emit=lambda _e: None,
        tree=AgentTree.root(2),
    )
    wall = time.perf_counter() - started
    done.set()
    await sampler
    return {
        "children": children,
        "answered": int(api.observations("ROOT-Q")[0].split()[0]),
        "peakProcesses": peak["processes"],
        "peakResidentMb": round(peak["residentKb"] / 1024, 1),
        "peakResidentMbPerChild": round(peak["residentKb"] / 1024 / children, 1),
        "processesLeft": len(sandbox_processes()),
        "wallS": round(wall, 2),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = make_folder(root, args.docs, args.kb)
        depth1 = await folder_run(folder, root / "out1", 1)
        depth2 = await folder_run(folder, root / "out2", 2)
        folder_variables = variables(folder)
        await one_start(folder_variables)  # warm: the first start loads what every one needs
        starts = [await one_start(folder_variables) for _ in range(args.runs)]
        root_start = statistics.median(s[0] for s in starts)
        child_start = statistics.median(s[1] for s in starts)
        fanned = await fan_out(folder_variables, args.children)
    return {
        "folder": {
            "docs": args.docs,
            "kbEach": args.kb,
            "depth1": depth1,
            "depth2": depth2,
            "tokensDepth2OverDepth1": round(depth2["tokens"] / max(depth1["tokens"], 1), 2),
        },
        "start": {
            "runs": args.runs,
            "rootStartMs": round(root_start * 1000, 1),
            "childStartMs": round(child_start * 1000, 1),
            "childOverRoot": round(child_start / root_start, 2),
            "goal": "childOverRoot <= 1.5",
        },
        "fanOut": fanned,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--kb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--children", type=int, default=32)
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
