"""Lexical tools of the offline baseline's non-code roles: sentences, overlap scores.

Terms are ``ralph_tui.words``'s, the same the worker searches with in the sandbox."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ralph_tui.llm.offline.sentences import YEAR, runs_of_prose
from ralph_tui.thesaurus import reader_terms
from ralph_tui.words import (
    LEADING,
    key_terms,
    names_of,
    query_terms,
    query_words,
    split_sentences,
    term_pairs,
    term_set,
)
from ralph_tui.words import sentences as all_sentences

LEAD = re.compile(r"""[\s"'`(\[*_“‘«]*(?:(?:[-*•]|\d+[.)])\s+)?[\s"'`(\[*_“‘«]*""")
"""What may stand between a sentence's start and a quote of it: white space, a list item's
marker, opening quote marks and brackets."""


def sentences(text: str, min_chars: int = 20) -> list[str]:
    """Sentences and lines of ``text`` (``words.sentences``), dropping fragments shorter
    than ``min_chars``."""
    return [sentence for sentence in all_sentences(text) if len(sentence) >= min_chars]


def support(claim: str, source: str) -> float:
    """Share of the claim's terms found in ``source`` (1.0 for a claim without terms)."""
    claim_terms = set(key_terms(claim))
    if not claim_terms:
        return 1.0
    return len(claim_terms & term_set(source)) / len(claim_terms)


def unsupported_terms(claim: str, source: str) -> list[str]:
    """The claim's terms ``source`` does not hold, sorted."""
    return sorted(set(key_terms(claim)) - term_set(source))


Rarity = Callable[[Sequence[str]], Mapping[str, float]]
"""How much each term says in the run's documents: its IDF over their passages (the
retrieval's ``LexicalIndex.rarity``), high for a name in a few passages, low for a word on
every page; a term no passage holds is left out."""


@dataclass(frozen=True)
class DocumentsRarity:
    """A ``Rarity`` that also knows what the documents are about: the names every one of
    their names holds ("Netflix" in NETFLIX_2021_10K.pdf). A question naming the company
    of its annual report ("What were Netflix's total revenues?") names what the whole
    document is about, not what tells its answer apart: the line "Total revenues
    $ 29,697,844" answers it without saying "Netflix" again."""

    rarity: Rarity
    subjects: frozenset[str]

    def __call__(self, terms: Sequence[str]) -> Mapping[str, float]:
        return self.rarity(terms)

    @classmethod
    def of(cls, rarity: Rarity, names: Iterable[str]) -> DocumentsRarity:
        """The subjects of documents named ``names``: the terms of letters alone (no year,
        no "10K") that each name holds, its extension aside."""
        held = [
            {term for term in term_set(re.sub(r"\.\w{1,5}$", "", name)) if term.isalpha()}
            for name in names
        ]
        return cls(rarity, frozenset(set.intersection(*held)) if held else frozenset())


COMMON_IDF = math.log(3)
"""The IDF (BM25's form) of a term held by about a third of the passages: a term at or
below it is one of the documents' common words ("program", "input" and "read" in a
manual), which says as little about where an answer is as a stop word. A handbook's own
subject ("duty manager" in a quarter of its passages) stays above it."""


@dataclass(frozen=True)
class ReaderPhrase:
    """A phrase of a question naming a thing in a reader's words ("headcount"), with the
    words a report names it by ("employees", "workforce"; ``ralph_tui.thesaurus``), and the
    terms of both. A reader's word for a change ("drop") is not one: a line answering why
    the cash dropped need not say "decrease" again."""

    phrase: str
    terms: frozenset[str]
    said: tuple[str, ...]
    said_terms: frozenset[str]

    @classmethod
    def all_of(cls, query: str) -> tuple[ReaderPhrase, ...]:
        return tuple(
            cls(
                phrase,
                frozenset(term_set(phrase)),
                tuple(said),
                frozenset(term_set(" ".join(said))),
            )
            for phrase, said in reader_terms(query, changes=False).items()
        )


@dataclass(frozen=True)
class Asked:
    """What a question or task asks about: its terms, each with its word as written, and
    its phrases (pairs of consecutive terms, either way round); once ``weighed``, which of
    its terms are the documents' common words and which they never use."""

    words: dict[str, str]
    phrases: frozenset[frozenset[str]]
    names: frozenset[str]
    """The terms a question names (``ralph_tui.words.names_of``): a text holding one is
    about what the question asks after, and sources lacking one cannot answer it. A task
    has none: the thing it names is often what the whole document is about ("bzip2" in
    bzip2's manual), so a passage naming it may still be off the task."""
    common: frozenset[str] = frozenset()
    """Terms the documents hold in a third of their passages or more (``COMMON_IDF``)."""
    absent: frozenset[str] = frozenset()
    """Terms no passage of the documents holds: no line can hold them."""
    subjects: frozenset[str] = frozenset()
    """The names of what the documents are about (``DocumentsRarity``): they tell no
    answer apart, whatever their rarity."""
    weighed_in_documents: bool = False
    """Whether ``common`` and ``absent`` are known (``weighed``)."""
    readers: tuple[ReaderPhrase, ...] = ()
    """Its phrases in a reader's words: a text holding the report's words for one holds it."""
    stated: tuple[ReaderPhrase, ...] = ()
    """Once weighed, its reader's phrases that the documents never use but state in the
    report's words they hold: what it asks about, so an answer says it in those words (a
    line about Boeing's "headcount" says "employees" or "workforce", not only "total" and
    "2021")."""

    def weighed(self, rarity: Rarity | None) -> Asked:
        """These terms as ``rarity`` tells them apart (unchanged without one)."""
        if rarity is None or not self.words:
            return self
        weights = rarity(list(self.words))
        common = frozenset(t for t, weight in weights.items() if weight <= COMMON_IDF)
        absent = frozenset(t for t in self.words if t not in weights)
        subjects = self.names & rarity.subjects if isinstance(rarity, DocumentsRarity) else set()
        said = sorted({term for reader in self.readers for term in reader.said_terms})
        held = frozenset(rarity(said)) if said else frozenset()
        stated = tuple(
            replace(reader, said_terms=reader.said_terms & held)
            for reader in self.readers
            if (own := reader.terms & set(self.words))
            and own <= absent
            and reader.said_terms & held
        )
        return replace(
            self,
            common=common,
            absent=absent,
            subjects=frozenset(subjects),
            weighed_in_documents=True,
            stated=stated,
        )

    def held_by(self, text: str) -> frozenset[str]:
        """The terms ``text`` holds, with those of a reader's phrase whose report's words it
        holds ("workforce" holds "headcount")."""
        held = term_set(text)
        readers = [reader.terms for reader in self.readers if held & reader.said_terms]
        return frozenset(held.union(*readers))

    def unsaid(self, held: frozenset[str] | set[str]) -> list[ReaderPhrase]:
        """The reader's phrases asked about (``stated``) whose report's words ``held`` lacks."""
        return [reader for reader in self.stated if not held & reader.said_terms]

    @property
    def telling(self) -> frozenset[str]:
        """The terms that tell an answer apart: those the documents hold, but not in a
        third of their passages (all held ones when every one is common; all terms when
        not weighed), and not "total" or "net" (``LEADING``) or a year, which say what
        sort of figure is asked for and of when, not what it is of: "total lease
        obligations ... 2021" holds two of "total revenues in 2021" and is no answer to it,
        and a table row ("Total revenues $ 29,697,844") gives its year in the header above
        it (none of them telling: all of them); and a reader's phrase the documents say in
        their own words (``stated``), which a line holds by those words."""
        held = frozenset(self.words) - self.absent
        told = held - self.subjects
        plain = frozenset(term for term in told - LEADING if not YEAR.fullmatch(term))
        stated = frozenset(term for reader in self.stated for term in reader.terms)
        asked = (plain - self.common) | (stated & frozenset(self.words))
        return asked or plain or told or held or frozenset(self.words)

    @property
    def telling_names(self) -> frozenset[str]:
        """Once weighed, the names among the telling terms: "bzip2recover" in bzip2's
        manual, not "License" in a licence, where it is on every line."""
        return self.names & self.telling if self.weighed_in_documents else frozenset()

    def lacks_most(self, missing: Iterable[str]) -> bool:
        """Whether the sources lack most of the question's terms, a missing common word not
        counted: a source lacking only those may still answer it."""
        return len(set(missing) - self.common - self.subjects) * 2 > len(self.words)

    @classmethod
    def of(cls, query: str, *, names: bool) -> Asked:
        asked = query_words(query)
        ordered = [term for term in key_terms(query) if term in asked]
        pairs = itertools.pairwise(ordered)
        phrases = frozenset(frozenset(pair) for pair in pairs if pair[0] != pair[1])
        named = frozenset(names_of(query)) & set(asked) if names else frozenset()
        return cls(asked, phrases, named, readers=ReaderPhrase.all_of(query))

    @classmethod
    def question(cls, query: str) -> Asked:
        return cls.of(query, names=True)

    @classmethod
    def task(cls, task: str) -> Asked:
        return cls.of(task, names=False)

    @property
    def terms(self) -> set[str]:
        return set(self.words)

    def addressed_by(self, text: str) -> bool:
        """Whether ``text`` holds at least half of the telling terms (one of one or two),
        one of the names, or a phrase of two telling terms: a passage sharing a common word
        or two with a longer question or task, apart (a licence's "damages ... data" with
        "recovers data from damaged files"), is about something else, and so is one holding
        only the documents' common words ("program", "input" in a manual). A question that
        names something the documents hold in few places is answered only about it, and one
        in a reader's words the documents never use only in the report's words for them
        (``stated``). The worker quotes, the reasoner writes and the judges pass by this one
        rule."""
        held = self.held_by(text)
        if self.unsaid(held):
            return False
        telling = self.telling
        if self.telling_names:
            return bool(held & self.telling_names)
        names = self.names & telling
        if len(held & telling) * 2 >= len(telling) or held & names:
            return True
        return any(
            frozenset(pair) in self.phrases and set(pair) <= telling for pair in term_pairs(text)
        )


def rank_sentences(query: str, candidates: list[str], limit: int) -> list[str]:
    """The ``limit`` candidates holding most of the query's terms (ties keep their order)."""
    asked = set(query_terms(query))
    scored = [(len(asked & term_set(s)), -i, s) for i, s in enumerate(candidates) if s.strip()]
    scored.sort(reverse=True)
    return [s for score, _, s in scored[:limit] if score > 0 or not asked]


def clip_words(text: str, limit: int) -> str:
    """A prefix of ``text`` of at most ``limit`` characters, cut at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def sentence_starts(window: str) -> list[int]:
    """Where the sentences of ``window`` start: each line that is no prose (a heading, a
    list item, a table row) or opens a paragraph's run of prose (``runs_of_prose``), and
    each sentence within a run (``split_sentences``), as offsets; the window's own start
    is one only when it is the start of its text (unknowable here, so not counted)."""
    starts: set[int] = set()
    offset = 0
    for line in window.split("\n"):
        starts.add(offset)
        offset += len(line) + 1
    at = 0
    for run in runs_of_prose(window, cut=True):
        found = window.find(run, at)
        if found < 0:
            continue
        first_line = run.split("\n", 1)[0]
        continued = range(found + len(first_line) + 1, found + len(run))
        starts -= {start for start in starts if start in continued}
        place = found
        for sentence in split_sentences(run):
            place = window.find(sentence, place)
            starts.add(place)
            place += len(sentence)
        at = found + len(run)
    starts.discard(0)
    return sorted(starts)


def _span_in(quote: str, window: str) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``window``, white space matching any white space (a quote
    of text wrapped over lines is given on one line); ``None`` where it does not."""
    parts = quote.split()
    if not parts:
        return None
    found = re.search(r"\s+".join(map(re.escape, parts)), window)
    return found.span() if found else None


def starts_mid_sentence(quote: str, window: str) -> bool:
    """Whether ``quote`` stands in ``window`` after the start of its sentence (past white
    space, a list marker and opening marks): a fragment cut from inside a sentence. False
    where that cannot be told: the quote not in the window, or nothing of the window
    before it."""
    span = _span_in(quote, window)
    if span is None or span[0] == 0:
        return False
    at = span[0]
    return not any(
        start <= at and LEAD.fullmatch(window, start, at) for start in sentence_starts(window)
    )


def continues(before: str, quote: str, window: str) -> bool:
    """Whether ``quote`` stands in ``window`` right after the end of ``before`` (its last
    words, white space aside): the next piece of a sentence quoted piece by piece."""
    span = _span_in(quote, window)
    tail = before.split()[-3:]
    if span is None or not tail:
        return False
    return " ".join(window[: span[0]].split()).endswith(" ".join(tail))


def sentence_around(quote: str, window: str) -> str:
    """The sentence of ``window`` that ``quote`` stands in, as much of it as the window
    holds (the quote itself when it is not in the window)."""
    span = _span_in(quote, window)
    if span is None:
        return quote
    starts = sentence_starts(window)
    begin = max((start for start in starts if start <= span[0]), default=0)
    end = min((start for start in starts if start >= span[1]), default=len(window))
    return window[begin:end]
