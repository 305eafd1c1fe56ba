"""Word forms, folded once: what counts as the same term, for every part that compares terms.

A word is folded (Unicode NFKC form, then case folded: "ﬁle" and "File" are "file") and
stemmed (Snowball English: "terminated" and "terminate" are "termin"). A compound word —
camelCase or letters and digits run together, ``asn1Coding``, ``bzip2recover`` — is one term
as a whole, and a text holding it also holds its parts: the pieces between case changes
and after digits (``asn1``, ``coding``), and a piece's letters without its digits
(``asn``). So a question naming ``asn1Coding`` or ``bzip2`` finds either.

Chinese and Japanese set no spaces between words, Korean none between a word and its
particles: without a dictionary there is no word to find, so runs of Han, Katakana and
Hangul (each script a run of its own) are cut into overlapping
character pairs ("逆洗水量" holds "逆洗", "洗水", "水量"; a lone character is a term of its
own), as a CJK bigram index does: a two-character word, the commonest length, is one term,
a longer one is its pairs in order (a phrase of terms), and one pair per character keeps the
index small. Hiragana writes Japanese particles and endings ("は", "を行う", "ますか") and a
few Han characters only ask ("什么", "吗": ``CHINESE_PARTICLES``): these runs are no content,
as stop words are, and no pair spans them. Stemming is English and applies only to words of
other scripts; NFKC makes half-width Katakana whole.

A question names its terms by whole words (``key_terms``, ``query_terms``); a text holds
its words' wholes and parts (``terms``). The offline worker and judge, the validator's term
checks and the retrieval's lexical leg all read terms here.

Sentences are cut here too, one way for every reader (``split_sentences``): after a full
stop, question or exclamation mark and white space, or after a Chinese or Japanese one. A
check that reads a phrase word by word (the contradiction check) takes its words from
``tokens``: folded the same way, of any script, inner apostrophes and hyphens kept.

It imports only the standard library and PyStemmer, and no name of its own package: the
offline worker sends this module's source to the sandbox, where it runs as it is.
"""

import itertools
import re
import unicodedata
from collections.abc import Iterable
from functools import cache

import Stemmer


def word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words`` as a set (for readable word lists)."""
    return frozenset(words.split())


STOP_WORDS = word_set(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each either etc few for from further had has have having he her here hers herself him
    himself his how i if in into is it its itself just let may me might more most much must
    my myself no nor not now of off on once one only or other our ours ourselves out over
    own per same she should so some such than that the their theirs them themselves then
    there these they this those through thus to too under until up upon us very via was we
    were what when where whether which while who whom whose why will with within without
    would yet you your yours yourself yourselves
    """
)
"""Words that carry no subject of their own."""

INSTRUCTION_WORDS = word_set(
    """
    describe explain summarize summarise list identify analyze analyse compare discuss
    provide outline determine give tell write document text section overview detail review
    find extract assess evaluate report note please often happen kind type way make take
    need use many
    """
)
"""Words a question or task is phrased with rather than about (compared by stem, so
"summarises" and "used" count too)."""

HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
HIRAGANA = "\u3041-\u309f"
HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
UNSPACED = HAN + KATAKANA + HIRAGANA + HANGUL
"""The scripts whose words are not set apart by spaces (character ranges for a regex class)."""
CHINESE_PARTICLES = "什么麼吗嗎呢吧啊哪谁誰怎"
"""Han characters that only ask or end a sentence ("什么", "吗", "怎么"): like Hiragana,
no content, and a break between the terms around them."""
GRAMMAR = f"{HIRAGANA}{CHINESE_PARTICLES}"

WORD = re.compile(
    f"[{GRAMMAR}]+|(?:(?![{CHINESE_PARTICLES}])[{HAN}])+|[{KATAKANA}]+|[{HANGUL}]+"
    f"|(?:(?![{UNSPACED}])\\w)+"
)
"""A run of grammar (Hiragana, Chinese particles), of Han, of Katakana or of Hangul, or of
other word characters."""
UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")
GRAMMAR_RUN = re.compile(f"[{GRAMMAR}]+")

TOKEN = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
"""A word as written: letters and digits of any script, inner apostrophes and hyphens kept."""

FULL_STOPS = ".!?"
"""Marks that end a sentence where white space follows them."""
WIDE_FULL_STOPS = "。！？"
"""Chinese and Japanese full stops: a sentence ends at one with no space after it."""
CLAUSE_ENDS = ";；"
"""Semicolons: the end of a clause, for checks that read each clause as a sentence."""


STEM_OVERRIDES = {"officer": "officer", "officers": "officer"}
"""Words whose Snowball stem is another word's: "officer" and "offices" both stem to "offic",
so "principal executive offices" (a filing's cover page) matched every certification of its
"principal executive officer"."""


@cache
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def fold(text: str) -> str:
    """``text`` in Unicode NFKC form, case folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def is_unspaced(word: str) -> bool:
    """Whether ``word`` is of a script written without spaces (its terms are character
    pairs, unstemmed)."""
    return not word.isascii() and UNSPACED_CHAR.match(word) is not None


@cache
def stem(word: str) -> str:
    """The Snowball (English) stem of ``word`` once folded (an unspaced word folded only)."""
    folded = fold(word)
    if is_unspaced(word):
        return folded
    return STEM_OVERRIDES.get(folded) or str(_stemmer().stemWord(folded))


@cache
def _instruction_stems() -> frozenset[str]:
    return frozenset(stem(word) for word in INSTRUCTION_WORDS)


def _is_simple(word: str) -> bool:
    """Letters only, without a case change past the first: a word with no parts."""
    return word.isalpha() and (word.islower() or word[1:].islower() or word.isupper())


def _pieces(word: str) -> list[str]:
    """``word`` cut where a lower-case letter meets an upper-case one, where an upper-case
    run meets a capitalised word (``HTMLParser``), after digits followed by a letter, and
    at underscores."""
    pieces: list[str] = []
    current = ""
    for index, char in enumerate(word):
        if char == "_":
            pieces.append(current)
            current = ""
            continue
        if current:
            before, after = current[-1], word[index + 1 : index + 2]
            camel = before.islower() and char.isupper()
            acronym_end = before.isupper() and char.isupper() and after.islower()
            if camel or acronym_end or (before.isdigit() and char.isalpha()):
                pieces.append(current)
                current = ""
        current += char
    pieces.append(current)
    return [piece for piece in pieces if piece]


def parts_of(word: str) -> list[str]:
    """The parts of a compound word, each once, in order: its pieces (``asn1``, ``Coding``)
    and each piece's letters without its trailing digits (``asn``). Empty for a word with
    no parts."""
    if _is_simple(word) or is_unspaced(word):
        return []
    pieces = _pieces(word)
    parts = [*pieces, *(piece.rstrip("0123456789") for piece in pieces)]
    return [part for part in dict.fromkeys(parts) if part and part != word]


def is_content(word: str) -> bool:
    """Whether a word names something: two characters or more, not a stop word; of an
    unspaced script, any character pair or lone character but Hiragana's."""
    if is_unspaced(word):
        return GRAMMAR_RUN.fullmatch(word) is None
    return len(word) > 1 and fold(word) not in STOP_WORDS


@cache
def word_terms(word: str) -> tuple[str, ...]:
    """The terms a text holding ``word`` holds: its whole stem, then its parts' stems (the
    content ones), each once."""
    found = [stem(word)] if is_content(word) else []
    found += [stem(part) for part in parts_of(word) if is_content(part)]
    return tuple(dict.fromkeys(found))


def _pairs(run: str) -> list[str]:
    """An unspaced run's overlapping character pairs (the run itself when it is one
    character)."""
    return [run[i : i + 2] for i in range(max(1, len(run) - 1))]


def words_of(text: str) -> list[str]:
    """The word runs of ``text``, as written; a run of an unspaced script as its character
    pairs (in NFKC form; a grammar run whole)."""
    runs = WORD.findall(text)
    if UNSPACED_CHAR.search(text) is None:
        return runs
    found: list[str] = []
    for run in runs:
        if is_unspaced(run) and not GRAMMAR_RUN.fullmatch(run):
            # NFKC first: a half-width Katakana letter and its voicing mark are one letter.
            found += _pairs(unicodedata.normalize("NFKC", run))
        else:
            found.append(run)
    return found


def tokens(text: str) -> list[str]:
    """The words of ``text`` folded (``fold``), in order, inner apostrophes and hyphens kept
    ("don't", "read-only", "l'été"): for checks that compare phrases word by word."""
    return TOKEN.findall(fold(text).replace("\u2019", "'"))


@cache
def sentence_end(also: str = "", lines: bool = False) -> re.Pattern[str]:
    """The white space between two sentences (``split_sentences``), as a pattern: empty
    after a Chinese or Japanese full stop that no space follows."""
    spaced = re.escape(FULL_STOPS + "".join(c for c in also if c.isascii()))
    wide = re.escape(WIDE_FULL_STOPS + "".join(c for c in also if not c.isascii()))
    return re.compile(f"(?<=[{spaced}])\\s+|(?<=[{wide}])\\s*" + ("|\\n+" if lines else ""))


def split_sentences(text: str, *, also: str = "", lines: bool = False) -> list[str]:
    """``text`` cut after each sentence, as written (the white space between dropped): at a
    full stop, question or exclamation mark followed by white space (``FULL_STOPS``), at a
    Chinese or Japanese one whether or not a space follows (``WIDE_FULL_STOPS``), at the
    marks of ``also`` too (``CLAUSE_ENDS``, ``":"``), and with ``lines`` at every line break.
    The one sentence splitter: the validator's checks, the offline roles and the names of a
    text all read sentences here."""
    return sentence_end(also, lines).split(text)


def sentences(text: str, *, also: str = "") -> list[str]:
    """The sentences and lines of ``text`` (``split_sentences``), stripped, none empty."""
    return [part.strip() for part in split_sentences(text, also=also, lines=True) if part.strip()]


def clause_term_pairs(text: str) -> set[tuple[str, str]]:
    """Pairs of consecutive content-word terms (``term_pairs``) within each sentence or
    clause of ``text``: no pair spans a sentence's end."""
    pairs: set[tuple[str, str]] = set()
    for sentence in sentences(text, also=CLAUSE_ENDS):
        pairs.update(term_pairs(sentence))
    return pairs


def word_count(text: str) -> int:
    """How many words ``text`` holds: its whitespace-separated runs holding a letter or
    digit, each character of an unspaced script counted as a word (a run without spaces
    is a sentence, not a word)."""
    spaced = [UNSPACED_CHAR.sub(" ", part) for part in text.split()]
    unspaced = len(UNSPACED_CHAR.findall(text))
    return unspaced + sum(1 for part in spaced if any(char.isalnum() for char in part))


def terms(text: str) -> list[str]:
    """Every term ``text`` holds (each word's whole and parts), in order, repeats kept."""
    return [term for word in words_of(text) for term in word_terms(word)]


def term_set(text: str) -> set[str]:
    """The distinct terms ``text`` holds."""
    return set(terms(text))


def key_terms(text: str) -> list[str]:
    """One term per content word of ``text``: its whole stem, in order, repeats kept."""
    return [stem(word) for word in words_of(text) if is_content(word)]


def term_pairs(text: str) -> set[tuple[str, str]]:
    """The pairs of consecutive content-word terms of ``text`` (its phrases, as terms)."""
    return set(itertools.pairwise(key_terms(text)))


def names_of(text: str) -> list[str]:
    """The terms of the names ``text`` uses, each once, in order: words written with a
    capital letter past the start of a sentence ("Ravensgill", "NTU") or as compounds
    (camelCase, letters with digits: "asn1Coding", "bzip2")."""
    found: dict[str, None] = {}
    for sentence in split_sentences(text, also=":"):
        for position, word in enumerate(words_of(sentence)):
            capital = position > 0 and word[:1].isupper()
            if is_content(word) and (capital or parts_of(word)):
                found.setdefault(stem(word), None)
    return list(found)


def query_words(text: str) -> dict[str, str]:
    """The terms a question or task asks about, each with its first word as written
    (folded): its words' whole stems, without the words it is phrased with
    (``INSTRUCTION_WORDS``), in order. The word is what a message names the term by."""
    instructions = _instruction_stems()
    asked: dict[str, str] = {}
    for word in words_of(text):
        term = stem(word)
        if is_content(word) and term not in instructions:
            asked.setdefault(term, fold(word))
    return asked


def query_terms(text: str) -> list[str]:
    """The distinct terms a question or task asks about (see ``query_words``), in order."""
    return list(query_words(text))


def folded_words(text: str) -> list[str]:
    """The content words of ``text``, folded, in order (the retrieval's vocabulary)."""
    return [fold(word) for word in words_of(text) if is_content(word)]


def stems_of(words: Iterable[str]) -> list[str]:
    """Each word's stem (as ``stem`` gives it), in order, in one call of the stemmer."""
    folded = [fold(word) for word in words]
    stemmed = _stemmer().stemWords(folded)
    return [
        word if is_unspaced(word) else STEM_OVERRIDES.get(word) or str(term)
        for word, term in zip(folded, stemmed, strict=True)
    ]


# Table rows are told here too, one way for every reader: the retrieval's row leg keys its
# rows by their labels, the offline baseline quotes them and reads them as prose no more.

MAX_ROW_LABEL = 200
"""Characters of a first cell read as a row's label (a longer one is prose, not a line item)."""
MARKDOWN_ROW = re.compile(r" {0,3}\|([^|\n]*)\|(.*\|)[ \t]*")
"""A Markdown table row: its first cell, the rest (a rule line's label has no words)."""
FIGURE_TOKEN = re.compile(r"[(\[]?[-–—−]?[$€£¥]?\d[\d,]*(?:\.\d+)?[)\]]?%?")
"""A figure as a table prints it: "29,697,844", "(24)", "$1.24", "13%"."""
FIGURE_MARKS = frozenset("$€£¥%—–-−()")
"""Marks a table prints apart from its figures: "$ 29,697,844", "19 %", "—" for none."""
MIN_ROW_FIGURES = 2
"""Figures a line without cells needs after its label to be a row: a sentence wrapped over
lines may end in one ("... in fiscal 2021")."""
LEADING = frozenset(stem(word) for word in ("total", "net"))
"""Words a label may start with that do not change which line item it is ("Total current
assets" is the current assets; "Net cash provided by ..." is the cash provided)."""


def table_row(line: str) -> tuple[str, str] | None:
    """The label and the rest of a table row with a figure after its label, else ``None``.
    A row is a line whose cells a tab separates (as PDF, HTML and Word tables are kept), a
    Markdown table row (``| label | 1,234 |``), or a line with no cells where a label is
    followed by figures alone (``Total revenues $ 29,697,844 $ 24,996,056 19 %``, as a PDF
    table with no ruling comes out): a label starting with a capital letter and ending in a
    word that is no stop word, then ``MIN_ROW_FIGURES`` figures or more."""
    if "\t" in line:
        label, _, rest = line.partition("\t")
    elif (row := MARKDOWN_ROW.fullmatch(line)) is not None:
        label, rest = row.group(1), row.group(2)
    else:
        return _labelled_figures(line)
    label = label.strip()
    if not label or len(label) > MAX_ROW_LABEL or not any(c.isdigit() for c in rest):
        return None
    return label, rest


def _labelled_figures(line: str) -> tuple[str, str] | None:
    """A line without cells read as a label and the figures after it (``table_row``)."""
    if "|" in line:
        return None
    spans = [found.span() for found in re.finditer(r"\S+", line)]
    first = len(spans)
    while first and _figure_like(line[slice(*spans[first - 1])]):
        first -= 1
    figures = [span for span in spans[first:] if FIGURE_TOKEN.fullmatch(line[slice(*span)])]
    if not first or len(figures) < MIN_ROW_FIGURES:
        return None
    label = line[spans[0][0] : spans[first - 1][1]]
    last = label.split()[-1]
    if not label[:1].isupper() or len(label) > MAX_ROW_LABEL or last[-1:] in ",;":
        return None
    if fold(last.strip(":")) in STOP_WORDS:
        return None
    return label, line[spans[first - 1][1] :]


def _figure_like(token: str) -> bool:
    return token in FIGURE_MARKS or FIGURE_TOKEN.fullmatch(token) is not None


def label_terms(label: str) -> list[str]:
    """The terms of a row label's content words, less a leading "Total" or "Net": what line
    item the row is."""
    words = words_of(label)
    while words and stem(words[0]) in LEADING:
        words = words[1:]
    return [stem(word) for word in words if is_content(word)]
