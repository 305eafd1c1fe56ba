"""What nesting buys a model that can read only so much: a question over a folder whose
answer needs facts from 3 of its documents, answered by a scripted model at ``max_depth`` 1
and 2 under the same budgets (the tree's steps and a token cap); prints one JSON object.

The folder: ``--docs`` generated documents of ``--kb`` KB each. Three hold one fact each (how
often their plant's chlorine residual is checked); every document also holds, about once in
every ``DISTRACTOR_EVERY`` sentences, a sentence with the same words that answers something
else ("the chlorine residual target ... is set by the state board"). So a search for the
question's words finds far more sentences than one agent can read.

The scripted model (``BoundedReader``) is the same policy at every level, and knows nothing
of where the facts are. It sees what the real loop sends it (its system prompt, question and
what its cells printed, each output cut by the loop at ``max_output_chars``) and decides
from that alone:

1. When its prompt offers ``rlm_query`` and its ``documents`` table lists more than one
   document, it starts one child per document with the same question
   (``rlm_query_batched``), prints their answers, and on its next turn answers with the
   sentences among them that it recognises as facts.
2. Otherwise it reads: its first cell lists the sentences of its ``context`` holding the
   question's key phrase and prints the first page of them; each next cell prints the next
   page (``PAGE`` sentences, about what fits the printed output). It answers with the
   sentences it has read that it recognises as facts when the pages run out or at its last
   step (its prompt's "N turns in all": a child's limit is what the tree has left for it).
3. Asked to salvage an agent whose steps ran out, it answers with the facts it recognises in
   the trajectory it is given.

"Recognises as a fact" stands for reading comprehension: a sentence holding the key phrase
and a verb of checking (``checked``, ``tested``, ``measured``); the distractors hold the key
phrase but no such verb. It is applied only to text the model was shown.

Tokens are what the scripted server reports to the client for each request: its request's
characters / 4 in, its reply's / 4 out (the loop counts them as a real server's usage). The
clients are metered as a run's are: a ``--token-cap`` stops the tree where a run would stop
(``capped``, no answer); the facts its cells had printed by then are reported beside.

Every pair of ``--steps`` (the root's step limit, which is the whole tree's) and token cap
(none, and each of ``--token-caps``) runs at both depths.

    PYTHONPATH=. .venv/bin/python bench/recursion_reader.py [--docs 20] [--kb 200]
        [--steps 12,80] [--token-caps 150000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
from pydantic import BaseModel
from recursion import FACTS, QUESTION  # bench/recursion.py: the same folder question
from recursion import make_folder as plant_folder

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.agent_tree import AgentTree
from ralph_tui.agents.rlm import rlm_agent_forward
from ralph_tui.documents import read_corpus
from ralph_tui.errors import CostCapReached
from ralph_tui.events import AgentStep, BaseEvent
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.offline.children import documents_to_split
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from ralph_tui.loops.context import DOCUMENTS_VARIABLE
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import FakeAPI, anthropic_message, streamed

KEY = "chlorine residual"
"""The question's key phrase: what the model searches its text for."""
DISTRACTORS = [
    "The chlorine residual target at the {name} plant is set by the state board.",
    "A chlorine residual chart hangs in the {name} plant control room.",
    "Records of the chlorine residual at the {name} plant go to the archive each year.",
]
DISTRACTOR_EVERY = 60
CHECKING = re.compile(r"\b(checked|tested|measured)\b")
PAGE = 30
"""Sentences a reading cell prints (about 3,000 characters: under the 4,000 printed)."""
CHARS_PER_TOKEN = 4


def make_folder(root: Path, docs: int, kb: int) -> Path:
    """``bench/recursion.py``'s folder of plant records, with this reader's distractors:
    sentences that hold the key phrase and answer something else, one in
    ``DISTRACTOR_EVERY``."""
    return plant_folder(
        root, docs, kb, DISTRACTORS, lambda rng: rng.randrange(DISTRACTOR_EVERY) == 0
    )


def recognised(text: str) -> list[str]:
    """The sentences of ``text`` the model takes for facts that answer the question."""
    sentences = re.split(r"(?<=[.!?])\s+|\n+", text)
    found = []
    for sentence in sentences:
        sentence = re.sub(r"^\S+ : ", "", sentence.strip())  # a child's answer, by document
        if KEY in sentence.lower() and CHECKING.search(sentence) and sentence not in found:
            found.append(sentence)
    return found


FIRST_CELL = f"""import re
_sentences = [s for s in re.split(r"(?<=[.!?])\\s+|\\n+", context) if {KEY!r} in s.lower()]
print(len(_sentences), "sentences hold {KEY}; page 1:")
print("\\n".join(_sentences[:{PAGE}]))
"""
NEXT_CELL = 'print("\\n".join(_sentences[{start}:{end}]))'
DELEGATE_CELL = """_names = [d["name"] for d in documents]
_results = rlm_query_batched([[{question!r}, [name]] for name in _names])
for _name, _result in zip(_names, _results):
    print(_name, ":", _result["error"] or _result["answer"])
"""


SALVAGE = "The step budget of a document-exploration agent ran out"
"""How the loop's salvage call (``agent_run.salvage``) begins its instructions."""


class BoundedReader(FakeAPI):
    """The scripted model of the module docstring, answering the Anthropic wire format."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens_in = 0
        self.tokens_out = 0
        self.calls = 0
        self.pages_read = 0
        """Pages of sentences the tree's reading cells printed (each up to ``PAGE``)."""
        self.facts_shown: set[str] = set()
        """The facts any agent of the tree was shown (in what its cells printed)."""

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        turn = self.decide(body)
        reply = json.dumps(turn)
        tokens_in = len(request.content) // CHARS_PER_TOKEN
        tokens_out = max(1, len(reply) // CHARS_PER_TOKEN)
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.calls += 1
        message = anthropic_message(
            [tool_use(turn, "submit_output")],
            stop_reason="tool_use",
            input_tokens=tokens_in,
            output_tokens=tokens_out,
        )
        return streamed(request, httpx2.Response(200, json=message))

    def decide(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body.get("system", "")
        if not isinstance(system, str):
            system = "\n".join(block.get("text", "") for block in system)
        messages = body["messages"]
        step = sum(1 for message in messages if message["role"] == "assistant")
        seen = "\n".join(observations(messages))
        self.facts_shown.update(fact for fact in FACTS.values() if fact in seen)
        question = QUESTION
        if SALVAGE in system:
            return answer(recognised(json.dumps(messages[0]["content"])))
        if documents_to_split(system) > 1:
            if step == 0:
                return code(DELEGATE_CELL.format(question=question))
            return answer(recognised(seen))
        turns = re.search(r"(\d+) turns in all", system)
        last_step = turns is not None and step + 1 >= int(turns[1])
        if step == 0:
            self.pages_read += 1
            return code(FIRST_CELL)
        total = int(match[1]) if (match := re.search(r"(\d+) sentences hold", seen)) else 0
        start = PAGE * step
        if last_step or start >= total:
            return answer(recognised(seen))
        self.pages_read += 1
        return code(NEXT_CELL.format(start=start, end=start + PAGE))


def code(source: str) -> dict[str, Any]:
    return {"code": source, "resultReady": False}


def answer(facts: list[str]) -> dict[str, Any]:
    return {"answer": "\n".join(facts) or "No answer found.", "resultReady": True}


def observations(messages: list[dict[str, Any]]) -> list[str]:
    """The tool results the conversation holds (what the agent's cells printed)."""
    found = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block["content"]
                    found.append(inner if isinstance(inner, str) else json.dumps(inner))
    return found


class Answer(BaseModel):
    answer: str


async def ask(folder: Path, depth: int, steps: int, token_cap: int | None = None) -> dict[str, Any]:
    """One run of the question at ``depth`` with ``steps`` for the tree and ``token_cap``."""
    corpus = read_corpus([folder])
    variables = {
        "context": AgentVariable(corpus.text, "The documents."),
        "documents": AgentVariable(corpus.table, DOCUMENTS_VARIABLE),
    }
    model = BoundedReader()
    scripted = AnthropicClient(
        "claude-sonnet-4-6",
        api_key="sk-ant-bench",
        base_url="https://anthropic.test",
        http_client=model.http_client(),
    )
    client = MeteredClient(scripted, UsageLedger(token_cap=token_cap))
    spec = RLMSpec(
        name="worker",
        definition="Answer the question from the documents.",
        output_model=Answer,
        max_steps=steps,
        sub_query_concurrency=4,
        cell_timeout_s=120,
    )
    taken: dict[str, int] = {}

    def count_steps(event: BaseEvent) -> None:
        if isinstance(event, AgentStep) and event.action != "fallback":
            taken[event.agent] = max(taken.get(event.agent, 0), event.step)

    started = time.perf_counter()
    status, answer_text, salvaged = "answered", "", False
    try:
        result = await rlm_agent_forward(
            client,
            spec,
            {"query": QUESTION},
            variables,
            sub_client=OfflineClient(role="sub"),
            emit=count_steps,
            tree=AgentTree.root(depth),
        )
        answer_text, salvaged = result.output.answer, result.fallback
        status = "salvaged" if salvaged else "answered"
    except CostCapReached:
        status = "capped"
    found = [n for n, fact in FACTS.items() if fact in answer_text]
    return {
        "maxDepth": depth,
        "steps": steps,
        "tokenCap": token_cap,
        "status": status,
        "factsInAnswer": len(found),
        "facts": [f"plant-{n:02d}.md" for n in found],
        "factsShown": len(model.facts_shown),
        "answer": answer_text,
        "stepsTaken": sum(steps for agent, steps in taken.items() if "fallback" not in agent),
        "agents": sum(1 for agent in taken if "fallback" not in agent),
        "pagesPrinted": model.pages_read,
        "calls": model.calls,
        "tokensIn": model.tokens_in,
        "tokensOut": model.tokens_out,
        "tokens": model.tokens_in + model.tokens_out,
        "wallS": round(time.perf_counter() - started, 2),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    steps = [int(n) for n in args.steps.split(",")]
    caps: list[int | None] = [None, *(int(n) for n in args.token_caps.split(",") if n)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_folder(Path(tmp), args.docs, args.kb)
        corpus = read_corpus([folder])
        keyed = sum(1 for s in re.split(r"(?<=[.!?])\s+|\n+", corpus.text) if KEY in s.lower())
        runs = [
            await ask(folder, depth, limit, cap)
            for limit in steps
            for cap in caps
            for depth in (1, 2)
        ]
    return {
        "question": QUESTION,
        "docs": args.docs,
        "kbEach": args.kb,
        "sentencesWithKeyPhrase": keyed,
        "sentencesPerPage": PAGE,
        "budgets": "steps: the root's step limit, shared by the whole tree (each level keeps "
        "2 for every level above it); tokenCap: the run's token cap (None: no cap)",
        "model": (
            "scripted, the same policy at both depths: with rlm_query offered over several "
            "documents, one child per document with the same question, then an answer from "
            "the fact sentences among their answers; otherwise list the sentences of its text "
            f"holding {KEY!r}, print them {PAGE} a step, and answer with the sentences read "
            "that hold the phrase and a verb of checking when the pages run out or at its last "
            "step (its prompt's turns). It never sees text its cells did not print."
        ),
        "runs": runs,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--kb", type=int, default=200)
    parser.add_argument("--steps", default="12,80", help="the tree's step limits, comma-separated")
    parser.add_argument("--token-caps", default="150000", help="token caps beside none")
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
