"""Lightweight contradiction heuristics: a negated statement and its affirmed twin.

A contradiction is reported when one clause negates a statement ("the cache is not enabled
by default", "the loader does not cache results", "the job never retries") and another
clause affirms the same statement ("the cache is enabled by default", "the loader caches
results", "the job always retries"). To keep false positives low:

- both clauses must share the words right before the marker (at least one) and right
  after it (at least one), and the shared part after the marker must cover all of one
  clause's remainder, so "it is not possible to X" does not clash with "it is possible to Y";
- the shared phrase, marker included, is at least three words with two content words;
- questions and clauses with a condition (if, unless, when, until, ...) are ignored, as
  are hedged negations ("not only", "not always", "not necessarily").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ralph_tui.words import CLAUSE_ENDS, is_content, sentences, tokens, word_set

AUXILIARIES = word_set(
    """
    is are was were be been can could will would should shall must has have had does do did
    """
)
_DO_FORMS = frozenset({"do", "does", "did"})
_NEGATORS = frozenset({"not", "never"})
_HEDGES_AFTER_NOT = word_set(
    """
    only just merely necessarily always quite exactly entirely simply even yet all
    """
)
_CONDITIONALS = word_set(
    """
    if unless when whenever whether until unless suppose supposing assuming otherwise
    """
)
_CONTRACTIONS = (
    (re.compile(r"\bcan['’]t\b|\bcannot\b", re.IGNORECASE), "can not"),
    (re.compile(r"\bwon['’]t\b", re.IGNORECASE), "will not"),
    (re.compile(r"\bshan['’]t\b", re.IGNORECASE), "shall not"),
    (re.compile(r"\b(\w+)n['’]t\b", re.IGNORECASE), r"\1 not"),
)
_CLAUSE_BREAK = re.compile(
    r",\s*|:\s+|\s+(?:but|however|although|though|whereas|yet)\s+", re.IGNORECASE
)
MIN_SHARED_WORDS = 3
MIN_SHARED_CONTENT_WORDS = 2


@dataclass(frozen=True)
class Clause:
    """A clause of the text and its word tokens."""

    text: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class Negation:
    """A negated marker inside a clause, with the affirmative forms that would clash."""

    clause: Clause
    before: tuple[str, ...]
    affirmatives: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    """Pairs of (affirmative marker words, the words expected after them)."""


def expand_contractions(text: str) -> str:
    """Spell out negative contractions: "isn't" → "is not", "can't" → "can not"."""
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def clauses(text: str) -> list[Clause]:
    """The statement clauses of ``text``: no questions, no conditional clauses."""
    found = []
    for sentence in sentences(expand_contractions(text), also=CLAUSE_ENDS):
        if sentence.endswith("?"):
            continue
        for part in _CLAUSE_BREAK.split(sentence):
            words = tuple(tokens(part))
            if words and not _CONDITIONALS.intersection(words):
                found.append(Clause(part.strip(" -*•\t"), words))
    return found


def _inflections(verb: str) -> set[str]:
    forms = {verb, verb + "s", verb + "es", verb + "d", verb + "ed"}
    if verb.endswith("y"):
        forms |= {verb[:-1] + "ies", verb[:-1] + "ied"}
    return forms


def _negation_at(clause: Clause, index: int) -> Negation | None:
    words = clause.words
    word = words[index]
    following = words[index + 1] if index + 1 < len(words) else ""
    if word in AUXILIARIES and following in _NEGATORS:
        rest = words[index + 2 :]
        if following == "not" and rest and rest[0] in _HEDGES_AFTER_NOT:
            return None
        options = [((word,), rest), ((word, "always"), rest)]
        if word in _DO_FORMS and rest:
            options += [((form,), rest[1:]) for form in sorted(_inflections(rest[0]))]
        return Negation(clause, words[:index], tuple(options))
    if word == "never" and (index == 0 or words[index - 1] not in AUXILIARIES):
        return Negation(clause, words[:index], ((("always",), words[index + 1 :]),))
    return None


def negations(clause: Clause) -> Iterator[Negation]:
    """Every negated marker of the clause."""
    for index in range(len(clause.words)):
        negation = _negation_at(clause, index)
        if negation is not None:
            yield negation


def _common_suffix(left: tuple[str, ...], right: tuple[str, ...]) -> int:
    count = 0
    while count < min(len(left), len(right)) and left[-1 - count] == right[-1 - count]:
        count += 1
    return count


def _common_prefix(left: tuple[str, ...], right: tuple[str, ...]) -> int:
    count = 0
    while count < min(len(left), len(right)) and left[count] == right[count]:
        count += 1
    return count


def _is_affirmed_at(negation: Negation, words: tuple[str, ...], position: int) -> bool:
    for marker, expected_after in negation.affirmatives:
        end = position + len(marker)
        if words[position:end] != marker:
            continue
        if end < len(words) and words[end] in _NEGATORS:
            continue
        if position > 0 and words[position - 1] in _NEGATORS:
            continue
        before = _common_suffix(negation.before, words[:position])
        after_words = words[end:]
        after = _common_prefix(expected_after, after_words)
        if before == 0 or after == 0:
            continue
        if after not in (len(expected_after), len(after_words)):
            continue
        shared = negation.before[len(negation.before) - before :] + expected_after[:after]
        content = sum(1 for word in shared if is_content(word))
        if before + len(marker) + after >= MIN_SHARED_WORDS and (
            content >= MIN_SHARED_CONTENT_WORDS
        ):
            return True
    return False


def affirms(clause: Clause, negation: Negation) -> bool:
    """Whether ``clause`` states what ``negation`` denies."""
    return any(
        _is_affirmed_at(negation, clause.words, position) for position in range(len(clause.words))
    )


def find_contradictions(text: str, limit: int = 3) -> list[tuple[str, str]]:
    """Up to ``limit`` pairs of (negated clause, affirming clause) found in ``text``."""
    found: list[tuple[str, str]] = []
    statement_clauses = clauses(text)
    for clause in statement_clauses:
        for negation in negations(clause):
            for other in statement_clauses:
                pair = (clause.text, other.text)
                if pair not in found and affirms(other, negation):
                    found.append(pair)
                    if len(found) >= limit:
                        return found
    return found
