"""The offline baseline as an RLM worker: the code it writes, and what it reads back.

It never sees the document. Its first step writes search code that runs in the sandbox over
``context`` (``sentences.py``, sent as source): it splits the document into sentences, keeps
those holding enough of the search terms (and none of the left-out ones), and prints which
terms the document holds at all and the best sentences as JSON strings. Its last step
answers from those printed sentences only: each quote is a whole sentence (or a clause ending
at punctuation), each bullet its quote's text, and a question whose terms the document mostly
lacks gets an honest "not found".
"""

from __future__ import annotations

import inspect
import json

from ralph_tui.llm.offline import sentences
from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.text import content_words, stem

MAX_QUOTE_CHARS = 160
MIN_CLAUSE_WORDS = 8
"""A clause shorter than this is more likely a list cut at a comma than a statement."""
PASSAGES_SHOWN = 12
FOUND_PREFIX = "terms found: "

SEARCH_CALL = """
for line in search_lines(
    context, {terms!r}, {focus!r}, {leave_out!r}, need={need}, shown={shown},
    found_prefix={found_prefix!r},
):
    print(line)
"""


def search_terms(text: str, limit: int = 8) -> list[str]:
    """Distinct stems of the query's content words, longest first (most specific)."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        seen.setdefault(stem(word), None)
    return sorted(seen, key=len, reverse=True)[:limit]


def needed_terms(query: str, steering: Steering) -> int:
    """Question terms a sentence must hold (unless it holds the rarest): two when the question
    has two, one when the validator asked for more lines."""
    return 1 if steering.wants_more else min(2, len(search_terms(query)))


def search_code(query: str, steering: Steering) -> str:
    """The sandbox code: the sentence search's source, then its call for this query."""
    return inspect.getsource(sentences) + SEARCH_CALL.format(
        terms=[t for t in search_terms(query) if t not in steering.leave_out],
        focus=steering.focus,
        leave_out=steering.leave_out,
        need=needed_terms(query, steering),
        found_prefix=FOUND_PREFIX,
        shown=PASSAGES_SHOWN,
    )


def printed_passages(observation: str) -> list[str]:
    """The JSON-string lines the search code printed, in order, without duplicates."""
    passages: dict[str, None] = {}
    for line in observation.splitlines():
        line = line.strip()
        if not line.startswith('"'):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, str) and value.strip():
            passages.setdefault(value.strip(), None)
    return list(passages)


def printed_terms(observation: str) -> list[str] | None:
    """The search terms the search code found in the document (``None`` if it never said)."""
    for line in observation.splitlines():
        if line.startswith(FOUND_PREFIX):
            terms = json.loads(line.removeprefix(FOUND_PREFIX))
            return [str(term) for term in terms]
    return None


def missing_terms(query: str, observation: str) -> list[str]:
    """The question's terms the document does not hold at all."""
    found = printed_terms(observation) or []
    return [term for term in search_terms(query) if term not in found]


def quote_from(passage: str) -> str | None:
    """The whole sentence, or its longest opening clause ending at punctuation within 160
    characters; ``None`` when no such clause holds enough words."""
    if len(passage) <= MAX_QUOTE_CHARS:
        return passage
    cut = max(passage.rfind(mark, 0, MAX_QUOTE_CHARS) for mark in (", ", "; ", ": "))
    clause = passage[: cut + 1] if cut > 0 else ""
    return clause if len(clause.split()) >= MIN_CLAUSE_WORDS else None


def bullet_of(quote: str) -> str:
    """The quote as an answer line: its own words and final punctuation, nothing added."""
    return "- " + " ".join(quote.split()).rstrip(",;: ")


def not_found_output(missing: list[str]) -> dict[str, object]:
    """An honest answer when the document does not address the question."""
    named = ", ".join(missing) if missing else "the question's terms together"
    return {
        "answer": f"- The document does not address this question; it lacks: {named}",
        "evidence": [],
    }


def qa_output(
    passages: list[str], query: str, observation: str, steering: Steering
) -> dict[str, object]:
    """Bullets and quotes from the printed sentences, or "not found" when the document
    lacks most of the question's terms or no sentence holds enough of them."""
    missing = missing_terms(query, observation)
    if len(missing) * 2 > len(search_terms(query)):
        return not_found_output(missing)
    limit = 7 if steering.wants_more else 5
    quotes: dict[str, None] = dict.fromkeys(steering.exact_quotes)
    for passage in passages:
        quote = quote_from(passage)
        if quote is not None and len(quotes) < limit:
            quotes.setdefault(quote, None)
    if not quotes:
        return not_found_output(missing)
    chosen = list(quotes)
    return {"answer": "\n".join(bullet_of(quote) for quote in chosen), "evidence": chosen}


def brief_output(passages: list[str], limit_chars: int = 1800) -> dict[str, object]:
    if not passages:
        return {"brief": "No passage of the document holds the task's terms."}
    lines = ["Passages of the document relevant to the task:"]
    for passage in passages:
        line = f"- {passage}"
        if sum(len(x) + 1 for x in lines) + len(line) > limit_chars:
            break
        lines.append(line)
    return {"brief": "\n".join(lines)}
