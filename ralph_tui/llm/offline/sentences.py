"""The offline baseline's sentence search, one implementation for both inner modes: the RLM
worker sends this module's source to the sandbox as the code it runs over ``context``; the
LCM worker calls it on the text its tools returned. It imports only the standard library,
so it runs as it is in the sandbox."""

import json
import math
import re


def has(term: str, low: str) -> bool:
    return re.search(r"\b" + re.escape(term), low) is not None


def runs_of_prose(block: str) -> list[str]:
    """Consecutive prose lines of a paragraph, as they stand in the text: a sentence that a
    PDF or a narrow column wrapped over lines is still one sentence. A list item starts a
    new run; headings (marked, or a short line without a full stop, as HTML and PDF titles
    come) and table rows are no prose."""
    runs: list[str] = []
    run: list[str] = []
    for line in block.split("\n"):
        bare = line.strip()
        item = bool(re.match(r"([-*]|\d+[.)]) ", bare))
        title = len(bare.split()) < 4 and not bare.endswith((".", ",", ";", ":"))
        if bare and bare[0] not in "#|" and not item and not title:
            run.append(line)
            continue
        if run:
            runs.append("\n".join(run))
        run = [line] if item else []
    if run:
        runs.append("\n".join(run))
    return runs


def sentences_of(text: str) -> list[str]:
    """The sentences of ``text`` of five words or more, verbatim."""
    sentences = []
    for block in re.split(r"\n[ \t]*\n", text):
        for prose in runs_of_prose(block):
            for part in re.split(r"(?<=[.!?])\s+", prose.strip()):
                if len(part.split()) >= 5:
                    sentences.append(part)
    return sentences


def rank_sentences(
    sentences: list[str],
    terms: list[str],
    focus: list[str],
    leave_out: list[str],
    need: int,
    present: list[str],
) -> list[str]:
    """The sentences holding enough of ``terms`` (or the rarest of those the text holds at
    all, ``present``, or a ``focus`` phrase) and none of ``leave_out``, best first: a term
    in few sentences says more about the question than one in many."""
    lows = [text.lower() for text in sentences]
    weight = {t: math.log(1 + len(lows) / (1 + sum(has(t, low) for low in lows))) for t in terms}
    rarest = max((t for t in terms if t in present), key=lambda t: weight[t], default=None)
    scored = []
    for n, low in enumerate(lows):
        if any(has(t, low) for t in leave_out):
            continue
        held = [t for t in terms if has(t, low)]
        hits = sum(has(t, low) for t in focus)
        if len(held) >= need or rarest in held or hits:
            scored.append((-hits, -len(held), -sum(weight[t] for t in held), n, sentences[n]))
    scored.sort()
    return [text for *_, text in scored]


def search_lines(
    context: str,
    terms: list[str],
    focus: list[str],
    leave_out: list[str],
    need: int,
    shown: int,
    found_prefix: str,
) -> list[str]:
    """What the search prints: the terms ``context`` holds at all, how many sentences hold
    enough of them, then the best sentences as JSON strings."""
    whole = context.lower()
    found = [t for t in terms + focus if has(t, whole)]
    sentences = sentences_of(context)
    best = rank_sentences(sentences, terms, focus, leave_out, need, found)
    lines = [found_prefix + json.dumps(found)]
    lines.append(f"{len(sentences)} sentences; {len(best)} hold enough of the terms")
    return lines + [json.dumps(text) for text in best[:shown]]
