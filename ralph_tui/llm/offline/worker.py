"""The offline baseline as an RLM worker: the code it writes, and what it reads back.

It never sees the document. Its first step writes search code that runs in the sandbox over
``context`` and prints the best-matching passages as JSON strings; its last step builds the
output from those printed passages only, so every quote is a verbatim slice of the document.
"""

from __future__ import annotations

import json

from ralph_tui.llm.offline.text import clip_words, content_words, stem

MAX_QUOTE_CHARS = 160
PASSAGES_SHOWN = 12

SEARCH_CODE = """import json, re
TERMS = {terms!r}
_DELIMS = (". ", "! ", "? ", "\\n")
_alternatives = "|".join(re.escape(t) for t in TERMS)
_pattern = re.compile(r"\\b(?:" + _alternatives + ")", re.IGNORECASE) if TERMS else None

def passage_bounds(pos):
    lo = max(0, pos - 400)
    head = context[lo:pos]
    start = lo + max((head.rfind(d) + len(d) for d in _DELIMS if head.rfind(d) >= 0), default=0)
    tail = context[pos:pos + 400]
    ends = [tail.find(d) + (d != "\\n") for d in _DELIMS if tail.find(d) >= 0]
    end = pos + (min(ends) if ends else len(tail))
    while start < end and context[start].isspace():
        start += 1
    while end > start and context[end - 1].isspace():
        end -= 1
    return start, end

spans = {{}}
if _pattern is not None:
    for n, match in enumerate(_pattern.finditer(context)):
        if n >= 20000:
            break
        s, e = passage_bounds(match.start())
        if context[s] != "#" and len(context[s:e].split()) >= 6:
            spans[s] = e
scored = []
for s, e in spans.items():
    low = context[s:e].lower()
    scored.append((sum(t in low for t in TERMS), -s, s, e))
scored.sort(reverse=True)
print(f"document: {{len(context):,}} characters; {{len(spans)}} passages mention {{TERMS}}")
for score, _, s, e in scored[:{shown}]:
    print(json.dumps(context[s:e][:300]))
"""

HEAD_CODE = """import json
heads = [line.strip() for line in context[:20000].splitlines() if len(line.strip()) >= 20]
print(f"document head: {{len(heads)}} lines")
for line in heads[:{shown}]:
    print(json.dumps(line[:300]))
"""


def search_terms(text: str, limit: int = 8) -> list[str]:
    """Distinct stems of the query's content words, longest first (most specific)."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        seen.setdefault(stem(word), None)
    return sorted(seen, key=len, reverse=True)[:limit]


def search_code(query: str) -> str:
    return SEARCH_CODE.format(terms=search_terms(query), shown=PASSAGES_SHOWN)


def head_code() -> str:
    return HEAD_CODE.format(shown=PASSAGES_SHOWN)


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


def quote_from(passage: str, query: str) -> str:
    """A verbatim slice of ``passage`` of at most 160 characters holding a query term.

    It starts where the passage starts unless the first term comes too late for that.
    """
    if len(passage) <= MAX_QUOTE_CHARS:
        return passage
    low = passage.lower()
    hits = [low.find(t) for t in search_terms(query) if low.find(t) >= 0]
    start = 0
    if hits and min(hits) > MAX_QUOTE_CHARS - 20:
        start = passage.find(" ", min(hits) - 60) + 1  # the first term is late: quote around it
    return clip_words(passage[start:], MAX_QUOTE_CHARS).strip()


def qa_output(passages: list[str], query: str, limit: int = 5) -> dict[str, object]:
    """Answer bullets and evidence quotes, each bullet restating its own verbatim quote."""
    quotes: dict[str, None] = {}
    for passage in passages:
        quote = quote_from(passage, query)
        if quote.lower() not in {q.lower() for q in quotes}:
            quotes[quote] = None
        if len(quotes) == limit:
            break
    chosen = list(quotes)
    answer = "\n".join(f"- {q.rstrip('.')}." for q in chosen)
    return {"answer": answer, "evidence": chosen}


def brief_output(passages: list[str], limit_chars: int = 1800) -> dict[str, object]:
    lines = ["Passages of the document relevant to the task:"]
    for passage in passages:
        line = f"- {passage}"
        if sum(len(x) + 1 for x in lines) + len(line) > limit_chars:
            break
        lines.append(line)
    return {"brief": "\n".join(lines)}
