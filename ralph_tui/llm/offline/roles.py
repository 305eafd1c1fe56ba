"""The offline baseline's non-code roles: judges, reasoner, decomposer, aggregator, compactor.

Each takes the fields the agent rendered into its user message (the only channel a real
model has too) and returns the arguments of its output tool.
"""

from __future__ import annotations

import re
from typing import Any

from ralph_tui.evidence import PASSAGE_MARKER
from ralph_tui.llm.offline.sentences import is_whole_sentence
from ralph_tui.llm.offline.text import (
    Asked,
    Rarity,
    clip_words,
    continues,
    rank_sentences,
    sentence_around,
    sentences,
    starts_mid_sentence,
    support,
    unsupported_terms,
)
from ralph_tui.words import key_terms, query_terms, term_set

SUPPORTED = 0.6
"""Share of a claim's terms that its evidence must contain to count as supported."""
MIN_OUTPUT_TERMS = 25
"""Terms an output needs to be specific."""


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(_as_text(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(_as_text(v) for v in value.values())
    return "" if value is None else str(value)


def _bullets(answer: str) -> list[str]:
    return [line[2:].strip() for line in answer.splitlines() if line.startswith("- ")]


def qa_judge(fields: dict[str, Any], rarity: Rarity | None = None) -> dict[str, Any]:
    """A verdict on each answer line: supported only when the windows of its own quotes
    hold its terms (``verdict_of``), its quotes start where a sentence starts (a fragment
    cut from inside a sentence may say the opposite of it), and it answers the question
    (``answers``: the line, with the sentence its quote stands in, holds a name the question
    names, or half of what the question's terms say, each weighed by its ``rarity`` in the
    documents). An issue for an answer leaving most of the question unanswered."""
    asked = Asked.question(_as_text(fields.get("query"))).weighed(rarity)
    lines = [line for line in fields.get("lines") or [] if isinstance(line, dict)]
    verdicts = []
    for line in lines:
        text = _as_text(line.get("text"))
        quotes = [q for q in line.get("quotes") or [] if isinstance(q, dict)]
        pairs = [
            (_as_text(q.get("quote")), _as_text(q.get("window") or q.get("quote"))) for q in quotes
        ]
        verdict = verdict_of(text, "\n".join(window for _, window in pairs))
        if verdict["verdict"] == "supported":
            verdict = answer_verdict(asked, text, pairs) or verdict
        verdicts.append({"line": line.get("line"), **verdict})
    issues = []
    held = asked.held_by("\n".join(_as_text(line.get("text")) for line in lines))
    unanswered = [word for term, word in asked.words.items() if term not in held]
    if asked.lacks_most(term for term in asked.words if term not in held):
        issues.append(f"The answer leaves most of the question unanswered: {', '.join(unanswered)}")
    return {"lines": verdicts, "issues": issues}


def answer_verdict(asked: Asked, text: str, quotes: list[tuple[str, str]]) -> dict[str, str] | None:
    """What keeps a line its quotes support from being a supported answer: a quote that
    starts inside a sentence (``partly_supported``), or a line that, read with the whole
    sentences its quotes stand in, does not answer the question (``unsupported``); ``None``
    when nothing does."""
    cut = [
        quote
        for n, (quote, window) in enumerate(quotes)
        if starts_mid_sentence(quote, window)
        and not (n and continues(quotes[n - 1][0], quote, window))
    ]
    if cut:
        return {
            "verdict": "partly_supported",
            "missing": "the start of the sentence its quote is cut from (quote the whole "
            f"sentence, not a fragment from inside it: {clip_words(cut[0], 80)})",
        }
    read = "\n".join([text, *(sentence_around(quote, window) for quote, window in quotes)])
    held = asked.held_by(read)
    if unsaid := asked.unsaid(held):
        reader = unsaid[0]
        return {
            "verdict": "unsupported",
            "missing": f"an answer to the question: the line does not say {reader.phrase} "
            f"in the documents' words for it ({', '.join(reader.said)})",
        }
    if asked.telling_names and not held & asked.telling_names:
        named = ", ".join(asked.words[term] for term in asked.telling_names)
        return {
            "verdict": "unsupported",
            "missing": f"an answer to the question: the line is not about {named}",
        }
    if not asked.addressed_by(read):
        lacking = [asked.words[t] for t in asked.words if t in asked.telling - held]
        return {
            "verdict": "unsupported",
            "missing": "an answer to the question: the line lacks what it asks about ("
            + ", ".join(lacking[:4])
            + ")",
        }
    return None


def verdict_of(claim: str, windows: str) -> dict[str, str]:
    """``supported`` when the windows hold ``SUPPORTED`` of the claim's terms, ``partly
    supported`` when they hold half as many, else ``unsupported``; what is missing named by
    the terms they lack."""
    share = support(claim, windows)
    if share >= SUPPORTED:
        return {"verdict": "supported", "missing": ""}
    missing = ", ".join(unsupported_terms(claim, windows)[:6])
    verdict = "partly_supported" if share >= SUPPORTED / 2 else "unsupported"
    return {"verdict": verdict, "missing": f"{missing} (they hold {share:.0%} of its terms)"}


def task_judge(fields: dict[str, Any]) -> dict[str, Any]:
    """Categorized issues: unsupported sentences, items that are fragments or off the task,
    task terms not covered, too little detail."""
    output = _as_text(fields.get("output"))
    source = "\n".join(_as_text(fields.get(name)) for name in ("brief", "passages", "memory"))
    asked = Asked.task(_as_text(fields.get("task")))
    issues: list[dict[str, str]] = []
    for sentence in sentences(output, min_chars=30):
        if support(sentence, source) < SUPPORTED / 2:
            issues.append(
                {
                    "category": "unsupported_claim",
                    "message": f"Not supported by the brief: {clip_words(sentence, 120)}",
                }
            )
    for item in _bullets(output):
        if not is_whole_sentence(item):
            issues.append(
                {
                    "category": "fragment",
                    "message": f"Not a whole sentence: {clip_words(item, 120)}",
                }
            )
        elif not asked.addressed_by(item):
            issues.append(
                {
                    "category": "off_task",
                    "message": "Holds too few of the task's terms "
                    f"({', '.join(asked.words.values())}): {clip_words(item, 120)}",
                }
            )
    held = term_set(output)
    uncovered = [word for term, word in asked.words.items() if term not in held]
    if len(uncovered) > len(asked.words) / 2:
        issues.append(
            {
                "category": "missing_scope",
                "message": "The output does not address: " + ", ".join(uncovered[:8]),
            }
        )
    if len(key_terms(output)) < MIN_OUTPUT_TERMS:
        issues.append(
            {"category": "low_specificity", "message": "The output is too short to be specific."}
        )
    return {"ok": "no" if issues else "yes", "issues": issues[:6]}


def reasoner(fields: dict[str, Any]) -> dict[str, Any]:
    """Compose the output from the brief's whole passages that are on the task, those
    holding most of its terms first, each line citing the marker the brief gave its passage
    (none for a line the brief cites no passage for)."""
    task = _as_text(fields.get("task"))
    brief = _as_text(fields.get("brief"))
    markers: dict[str, str] = {}
    for line in brief.splitlines():
        if line.startswith("- "):
            text = line[2:].strip()
            found = PASSAGE_MARKER.match(text)
            passage = text[found.end() :].strip() if found else text
            markers[passage] = found[0] if found else ""
    asked = Asked.task(task)
    fitting = [p for p in markers if is_whole_sentence(p) and asked.addressed_by(p)]
    wanted = 8 if fields.get("constraints") else 5
    chosen = rank_sentences(task, fitting, wanted)
    if not chosen:
        # Not restating the task: its words in the output would count as covering it.
        return {
            "output": "The brief holds no whole passage on the task.",
            "memoryUpdate": "No passage on the task found yet; search with other terms.",
        }
    body = "\n".join(f"- {citing(p, markers[p])}" for p in chosen)
    output = f'Findings from the document for the task "{clip_words(task, 120)}":\n{body}'
    covered = sorted({term for p in chosen for term in term_set(p) & asked.terms})
    memory = f"Covered {len(chosen)} passages about: {', '.join(covered) or 'the task'}."
    return {"output": output, "memoryUpdate": memory}


FINAL_MARKS = re.compile(r"[.!?:。！？：][\"'`)\]*_」』）]*$")
"""A sentence's closing punctuation (and the quote marks or brackets after it)."""


def citing(sentence: str, marker: str) -> str:
    """``sentence`` ending with ``marker`` before its closing punctuation (``... 48 hours
    [P2].``); as it is without a marker."""
    if not marker:
        return sentence
    closing = FINAL_MARKS.search(sentence)
    cut = closing.start() if closing else len(sentence)
    return f"{sentence[:cut].rstrip()} {marker}{sentence[cut:]}"


def decomposer(fields: dict[str, Any]) -> dict[str, Any]:
    """Split the task at ``;``, `` and then ``, and sentence ends; at most five sub-tasks."""
    task = _as_text(fields.get("task")).strip()
    parts = [p.strip(" .") for p in re.split(r";|\band then\b|(?<=[.?!])\s+", task)]
    parts = [re.sub(r"^(?:then|and)\s+", "", p, flags=re.IGNORECASE) for p in parts]
    parts = [p for p in parts if len(query_terms(p)) >= 2][:5]
    if len(parts) < 2:
        parts = [f"Find the passages of the document relevant to: {task}", task]
    subtasks = []
    for index, part in enumerate(parts, start=1):
        subtasks.append(
            {
                "id": f"s{index}",
                "title": clip_words(part, 60),
                "description": part,
                "depends_on": [f"s{index - 1}"] if index > 1 else [],
                "priority": index,
            }
        )
    return {"subtasks": subtasks}


def aggregator(fields: dict[str, Any]) -> dict[str, Any]:
    results = fields.get("subtask_results") or []
    sections = []
    for item in results if isinstance(results, list) else []:
        if isinstance(item, dict):
            sections.append(f"## {item.get('title', item.get('id', ''))}\n{item.get('output', '')}")
    return {"output": "\n\n".join(sections) or "No sub-task produced an output."}


def compactor(fields: dict[str, Any]) -> dict[str, Any]:
    """The first sentence of each episode's memory update, within the budget.

    Episodes come as a list of records or as the rendered text of the compaction prompt,
    where each episode has a ``Memory update: ...`` line.
    """
    budget = int(fields.get("budget_chars") or 1500)
    episodes = fields.get("episodes") or []
    if isinstance(episodes, str):
        updates = [
            line.removeprefix("Memory update:").strip()
            for line in episodes.splitlines()
            if line.startswith("Memory update:")
        ]
    else:
        updates = [_as_text(e.get("memoryUpdate") if isinstance(e, dict) else e) for e in episodes]
    lines: list[str] = []
    for update in updates:
        first = (sentences(update, min_chars=1) or [""])[0]
        if first and first not in lines:
            lines.append(first)
    return {"summary": clip_words(" ".join(lines), budget) or "No findings yet."}


def sub_query(prompt: str) -> str:
    """Answer an ``llm_query``: the sentences of the passed slice that best match the question."""
    question, _, passage = prompt.partition("\n\n---\n")
    if not passage.strip():
        return "No text was passed to answer from."
    best = rank_sentences(question, sentences(passage, min_chars=10), 3)
    return " ".join(best) if best else "The passage does not mention it."
