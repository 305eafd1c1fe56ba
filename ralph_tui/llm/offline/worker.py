"""The offline baseline as an RLM worker: the code it writes, and what it reads back.

It never sees the document. Its first step writes search code that runs in the sandbox: it
searches ``context`` for each word of the query (case-insensitive ``re.finditer``, the
start a word shares with its term: "qualif" for "qualify"), reads the paragraphs around the
hits where the most of the words meet (slices of ``context``, so the run's coverage records
both the words searched and the windows read), asks ``retrieve()`` (where the sandbox has
it) for the passages of the run's index about the query — the document's and fetched
pages' alike — splits what it read and retrieved into sentences, keeps those holding enough
of the search terms (and none of the left-out ones), and prints which terms the sources
hold and the best sentences as JSON strings. The search is ``sentences.py`` and the terms
are ``ralph_tui.words``, both sent as source, so the sandbox folds words exactly as the
host does. Its last step answers from those printed sentences only: each quote is a whole
sentence (or a clause ending at punctuation), each bullet its quote's text (linked to that
quote alone), and a question whose terms the sources mostly lack gets an honest "not found"
(a line no quote backs).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Collection, Mapping
from types import ModuleType

from ralph_tui import words
from ralph_tui.evidence import passage_marker
from ralph_tui.llm.offline import sentences
from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.text import Asked, Rarity

MAX_QUOTE_CHARS = sentences.MAX_QUOTE_CHARS
MAX_QUOTES = 8
"""The validator's bound on the quotes of an answer."""
MAX_PIECES = 3
"""Quotes one answer line may take to quote a long sentence, piece after piece."""
MIN_PIECE_WORDS = 3
"""Words a piece of a sentence needs to be accepted as a quote."""
PASSAGES_SHOWN = 12
RETRIEVED = 6
"""Passages asked of ``retrieve()``: a few chunks beside the whole-text search."""
RETRIEVED_SOURCES = ("doc", "external")
"""What the worker quotes from: the documents and fetched pages, never past episodes (the
baseline's own earlier outputs). Each is asked on its own: their passages' scores come from
indexes of their own, so in one search a long document's chunks sharing common words with
the question can crowd out every fetched page that answers it."""
FOUND_PREFIX = "terms found: "
CLAUSE_MARKS = ",;:、，；："
CLAUSE_END = re.compile(r"(?<=[,;:])(?=\s)|(?<=[、，；：])")
"""Where a clause ends: after a comma, semicolon or colon and a space, or after their
Chinese and Japanese forms (written with no space after)."""
SHIPPED: tuple[ModuleType, ...] = (words, sentences)
"""The modules the sandbox code installs from their source, in import order."""

INSTALL = """import sys as _sys, types as _types


def _install(name, source):
    if name not in _sys.modules:
        module = _sys.modules[name] = _types.ModuleType(name)
        exec(compile(source, name, "exec"), module.__dict__)

"""
MODULE = """
_install({name!r}, r'''{source}''')
"""

SEARCH_CALL = """
import re
hits = {{}}
for word in {searched!r}:
    hits[word] = [match.start() for match in re.finditer(word, context, re.IGNORECASE)]
read = [context[start:end] for start, end in reading_spans(context, hits)]
_retrieve = globals().get("retrieve")
_passages = [
    passage
    for _source in ({sources!r} if _retrieve else [])
    for passage in _retrieve({query!r}, k={k}, sources=[_source])
]
_retrieved = [quotable(passage, context) for passage in _passages]
for line in search_lines(
    read, _retrieved, {terms!r}, {focus!r}, {leave_out!r}, need={need}, shown={shown},
    found_prefix={found_prefix!r}, tables={tables!r}, whole=context,
):
    print(line)
"""


def search_terms(text: str, limit: int = 8) -> list[str]:
    """The terms the query asks about, longest first (most specific)."""
    return sorted(words.query_terms(text), key=len, reverse=True)[:limit]


def _shared_start(first: str, second: str) -> str:
    size = next((n for n, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), None)
    return first[: min(len(first), len(second)) if size is None else size]


def grep_prefixes(text: str, terms: list[str]) -> dict[str, str]:
    """For each of ``terms``, what to search the text for: the start its word in ``text``
    shares with its stem ("qualifi", the stem of "qualify", searches "qualif"); the term
    itself when no word of ``text`` has it (a constraint's term)."""
    prefixes = {term: term for term in terms}
    for word in words.words_of(text):
        term = words.stem(word)
        if words.is_content(word) and prefixes.get(term) == term:
            prefixes[term] = _shared_start(words.fold(word), term) or term
    return prefixes


def needed_terms(query: str, steering: Steering) -> int:
    """Question terms a sentence must hold (unless it holds the rarest): two when the question
    has two, one when the validator asked for more lines."""
    return 1 if steering.wants_more else min(2, len(search_terms(query)))


def shipped_code() -> str:
    """Sandbox code that installs ``SHIPPED`` under their own names, from their source
    (where they are not imported already), each source shown as it is written."""
    modules = []
    for module in SHIPPED:
        source = inspect.getsource(module)
        if "'''" in source:
            raise ValueError(f"{module.__name__} cannot be sent in a raw string literal")
        modules.append(MODULE.format(name=module.__name__, source=source))
    imported = f"from {sentences.__name__} import quotable, reading_spans, search_lines\n"
    return INSTALL + "".join(modules) + imported


def search_code(query: str, steering: Steering, *, tables: bool = False) -> str:
    """The sandbox code: the search's modules, then its call for this query (``tables``:
    table rows are candidates too, for a brief; a quote must be the document's text)."""
    terms = [t for t in search_terms(query) if t not in steering.leave_out]
    prefixes = grep_prefixes(query, terms + steering.focus)
    return shipped_code() + SEARCH_CALL.format(
        searched=[re.escape(prefix) for prefix in dict.fromkeys(prefixes.values())],
        query=query,
        k=RETRIEVED,
        sources=list(RETRIEVED_SOURCES),
        terms=terms,
        focus=steering.focus,
        leave_out=steering.leave_out,
        need=needed_terms(query, steering),
        found_prefix=FOUND_PREFIX,
        shown=PASSAGES_SHOWN,
        tables=tables,
    )


def printed_passages(observation: str) -> list[str]:
    """The JSON-string lines the search code printed (composed ones too), in order, without
    duplicates."""
    return list(dict.fromkeys(text for text, _ in _printed(observation)))


def printed_composed(observation: str) -> set[str]:
    """The printed lines the search code marked as composed: not the sources' own words."""
    return {text for text, composed in _printed(observation) if composed}


def _printed(observation: str) -> list[tuple[str, bool]]:
    """Each JSON-string line printed, stripped, and whether it was marked composed."""
    printed = []
    for line in observation.splitlines():
        line = line.strip()
        composed = line.startswith(sentences.COMPOSED_PREFIX)
        line = line.removeprefix(sentences.COMPOSED_PREFIX)
        if not line.startswith('"'):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, str) and value.strip():
            printed.append((value.strip(), composed))
    return printed


def printed_readings(observation: str) -> dict[str, str]:
    """Each table row's quote the search code printed with what a reader reads in the row
    (the line after it, ``sentences.READS_PREFIX``): the quote is quoted, the reading is
    its line."""
    readings: dict[str, str] = {}
    for line in observation.splitlines():
        if not line.startswith(sentences.READS_PREFIX):
            continue
        try:
            pair = json.loads(line.removeprefix(sentences.READS_PREFIX))
        except json.JSONDecodeError:
            continue
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            row, reading = (x.strip() for x in pair)
            if row and reading:
                readings.setdefault(row, reading)
    return readings


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


def clauses_of(passage: str) -> list[str]:
    """The passage cut at each clause end (``CLAUSE_END``), verbatim (joined they give it
    back)."""
    return [part for part in CLAUSE_END.split(passage) if part]


def pieces_of(passage: str) -> list[str]:
    """The passage cut into consecutive pieces of at most ``MAX_QUOTE_CHARS`` each, at
    clause ends (at spaces inside a clause longer than that), each verbatim and stripped:
    read in order, they are the whole sentence."""
    parts: list[str] = []
    for clause in clauses_of(passage):
        if len(clause) <= MAX_QUOTE_CHARS:
            parts.append(clause)
        else:
            parts += re.split(r"(?<=\s)(?=\S)", clause)
    pieces: list[str] = []
    current = ""
    for part in parts:
        if current.strip() and len((current + part).strip()) > MAX_QUOTE_CHARS:
            pieces.append(current.strip())
            current = part
        else:
            current += part
    if current.strip():
        pieces.append(current.strip())
    return pieces


def quotes_from(
    passage: str, asked: Asked, addressed: Callable[[str], bool] | None = None
) -> list[str] | None:
    """The quotes of one answer line from a sentence that addresses the question
    (``addressed``, by default ``Asked.addressed_by``): the sentence itself when it fits
    in one quote; else its first pieces (``pieces_of``), as many as it takes to hold every
    telling term of the question the sentence holds (``Asked.telling``), at most
    ``MAX_PIECES`` — every quote of a line continues the one before it, and the first
    starts the sentence: a clause from inside a sentence may say the opposite of it
    ("... unless the holder terminates"), and the judge passes no such fragment. ``None``
    when the sentence does not address the question or a piece is too short to quote."""
    if not (addressed or asked.addressed_by)(passage):
        return None
    if len(passage) <= MAX_QUOTE_CHARS:
        return [passage]
    pieces = pieces_of(passage)
    wanted = words.term_set(passage) & asked.telling
    for count in range(1, min(len(pieces), MAX_PIECES) + 1):
        chosen = pieces[:count]
        if words.term_set(" ".join(chosen)) >= wanted:
            short = any(words.word_count(piece) < MIN_PIECE_WORDS for piece in chosen)
            return None if short else chosen
    return None


def row_quotes(quote: str, reading: str, asked: Asked) -> list[str] | None:
    """The quote of an answer line read from a table row (the whole row, or the table from
    its header down to the row: a cell cut from it would say nothing of which row it is),
    when it fits in one quote and the row's reading addresses the question; else
    ``None``."""
    fits = len(quote) <= MAX_QUOTE_CHARS
    return [quote] if fits and asked.addressed_by(reading) else None


def bullet_of(quote: str) -> str:
    """The quote as an answer line: its own words and final punctuation, and nothing added
    but an ellipsis in front of a run taken from inside a sentence, so that it is not
    passed off as a sentence of its own."""
    text = " ".join(quote.split()).rstrip(CLAUSE_MARKS + " ")
    return "- " + (f"… {text}" if text[:1].islower() else text)


def not_found_output(missing: list[str]) -> dict[str, object]:
    """An honest answer when the document does not address the question."""
    named = ", ".join(missing) if missing else "the question's terms together"
    return {
        "answer": f"- The document does not address this question; it lacks: {named}",
        "evidence": [],
        "lineQuotes": [[]],
    }


def qa_output(
    passages: list[str],
    query: str,
    observation: str,
    steering: Steering,
    rarity: Rarity | None = None,
    *,
    part: bool = False,
    readings: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """Bullets and quotes from the printed sentences (each quote addressing the question),
    and from the printed table rows (``readings``: each row's reading is its line, the row
    its one quote, verbatim; ``printed_readings`` of the observation unless given), or
    "not found" when the sources lack most of what the question's terms say or a name
    it names, or no sentence addresses it. Terms weigh their ``rarity`` in the documents:
    a manual's "program", "input" and "read" say little beside the name of the program.

    ``part``: the sources are one part of what the question is about (a child agent's
    documents, its parent merging what each child quoted): a sentence addresses the question
    when it holds as many of its terms as the search asks of one (``needed_terms``), and
    the sources lacking most of its terms is no reason to say "not found" (the other parts
    may hold them; lacking a name the question names still is)."""
    missing = missing_terms(query, observation)
    asked = Asked.question(query).weighed(rarity)
    lacking = asked.lacks_most(missing) and not part
    if lacking or asked.names.intersection(missing):
        return not_found_output(missing)
    need = needed_terms(query, steering)
    enough = (lambda text: len(words.term_set(text) & asked.terms) >= need) if part else None
    limit = 7 if steering.wants_more else 5
    readings = printed_readings(observation) if readings is None else readings
    lines = [[quote] for quote in dict.fromkeys(steering.exact_quotes)]
    said: dict[int, str] = {}  # the line of each row quoted: its reading
    for passage in passages:
        if passage in readings:
            quotes = row_quotes(passage, readings[passage], asked)
        else:
            quotes = quotes_from(passage, asked, enough)
        taken = {quote for line in lines for quote in line}
        if quotes is None or taken.intersection(quotes) or len(lines) >= limit:
            continue
        if len(taken) + len(quotes) <= MAX_QUOTES:
            if passage in readings:
                said[len(lines)] = readings[passage]
            lines.append(quotes)
    if not lines:
        return not_found_output(missing)
    evidence = [quote for line in lines for quote in line]
    numbers = iter(range(1, len(evidence) + 1))
    return {
        "answer": "\n".join(bullet_of(said.get(n, " ".join(line))) for n, line in enumerate(lines)),
        "evidence": evidence,
        "lineQuotes": [[next(numbers) for _ in line] for line in lines],
    }


def brief_output(
    passages: list[str], composed: Collection[str] = (), limit_chars: int = 1800
) -> dict[str, object]:
    """The passages as a brief, one line each (a passage wrapped over lines is joined, so
    whoever reads the brief line by line reads it whole). Each that is the document's own
    words is cited by its marker and given verbatim in ``passages``; a ``composed`` one (a
    table row named by its header) is in the brief without a marker."""
    if not passages:
        return {"brief": "No passage of the document holds the task's terms.", "passages": []}
    lines = ["Passages of the document relevant to the task:"]
    cited: list[str] = []
    for passage in passages:
        marker = "" if passage in composed else passage_marker(len(cited) + 1) + " "
        line = "- " + marker + " ".join(passage.split())
        if sum(len(x) + 1 for x in lines) + len(line) > limit_chars:
            break
        lines.append(line)
        if marker:
            cited.append(passage)
    return {"brief": "\n".join(lines), "passages": cited}
