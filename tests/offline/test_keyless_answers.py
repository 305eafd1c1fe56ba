"""The keyless baseline weighs a question's terms by their rarity in the documents (the
lexical leg's IDF), and its judge passes a line only when it answers the question from the
start of a sentence: lines its quotes back but that answer something else, and fragments cut
from inside a sentence, are not supported answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents.convert import _html
from ralph_tui.llm.offline import roles
from ralph_tui.llm.offline.text import Asked, Rarity, starts_mid_sentence
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.index import open_index
from ralph_tui.validate.qa import evidence_windows
from tests.offline.judging import judge_input, judgement_of

DATA = Path(__file__).parent / "data"
BUFFER_QUESTION = "What does BZ2_bzBuffToBuffCompress return when the output buffer is too small?"
NOT_ANSWERS = [
    "Because the output buffer supplied by the user can be arbitrarily small,",
    "Provides more input and/or output buffer space for the library.",
    "The caller maintains input and output buffers, and calls BZ2_bzCompress to transfer"
    " data between them.",
]
ANSWER = (
    "Returned by BZ2_bzBuffToBuffCompress and BZ2_bzBuffToBuffDecompress to indicate that"
    " the output data will not fit into the output buffer provided."
)


def bzip2_manual() -> str:
    return _html((DATA / "bzip2-manual.html").read_bytes()).text


async def rarity_of(text: str) -> Rarity:
    """The lexical leg's IDF of the text's chunks, as a run hands it to the baseline."""
    index = await open_index(text, chunking=Chunking(), embedder=None, cache=None)
    return index.lexical.rarity


def judged(query: str, document: str, lines: list[str], rarity: Rarity | None) -> list[str]:
    """The offline judge's verdict on each line, each quoting itself, with the windows the
    loop would give it from ``document``."""
    output = {
        "answer": "\n".join(f"- {line}" for line in lines),
        "evidence": lines,
        "lineQuotes": [[n] for n in range(1, len(lines) + 1)],
    }
    fields = judge_input(query, output, evidence_windows(document, lines))
    judgement = judgement_of(roles.qa_judge(fields, rarity), fields)
    return [str(claim.verdict) for claim in judgement.claims]


async def test_lines_that_do_not_answer_are_not_supported_and_the_answer_is() -> None:
    manual = bzip2_manual()
    assert all(" ".join(line.split()) for line in NOT_ANSWERS)
    rarity = await rarity_of(manual)
    verdicts = judged(BUFFER_QUESTION, manual, [*NOT_ANSWERS, ANSWER], rarity)
    assert verdicts == ["unsupported", "unsupported", "unsupported", "supported"]


async def test_a_fragment_from_inside_a_sentence_is_not_a_supported_answer_line() -> None:
    licence = (DATA / "Apache-2.0.txt").read_text(encoding="utf-8")
    question = "When do the patent licenses granted under this License terminate?"
    fragment = (
        "then any patent licenses granted to You under this License for that Work shall"
        " terminate as of the date such litigation is filed."
    )
    window = evidence_windows(licence, [fragment])[0]
    assert starts_mid_sentence(fragment, window)
    for rarity in (None, await rarity_of(licence)):
        assert judged(question, licence, [fragment], rarity) == ["partly_supported"]


def test_a_quote_that_starts_its_sentence_or_list_item_is_no_fragment() -> None:
    window = "the end of one. Second sentence here, on.\n- An item of a list.\nA last one."
    assert not starts_mid_sentence("Second sentence here,", window)
    assert not starts_mid_sentence("An item of a list.", window)
    assert starts_mid_sentence("sentence here, on.", window)
    wrapped = "It starts here and is wrapped\nover two lines of the page."
    assert starts_mid_sentence("over two lines of the page.", wrapped)


async def test_common_words_of_the_question_weigh_little(tmp_path: Path) -> None:
    manual = manual_like(tmp_path).read_text(encoding="utf-8")
    question = "What does the frobtool program do and what input does it read?"
    asked = Asked.question(question)
    line = "Frobtool merges the sorted lists given to it into one sorted list."
    other = "The zapper program reads its input from the files named on the command line."
    assert not asked.addressed_by(line) and asked.addressed_by(other), "counted, not weighed"
    weighed = asked.weighed(await rarity_of(manual))
    assert weighed.common == {"program", "input", "read"}
    assert weighed.telling == {"frobtool"}
    assert weighed.addressed_by(line)
    assert not weighed.addressed_by(other)


MANUAL_PROGRAMS = [
    ("zapper", "removes the files named on its command line"),
    ("lister", "prints the names of the files in a folder"),
    ("counter", "counts the lines of each file"),
    ("sorter", "sorts the lines of each file"),
    ("packer", "packs the files into one archive"),
    ("mailer", "sends each file to the address given"),
]


def manual_like(tmp_path: Path) -> Path:
    """A manual of many programs, where "program", "input" and "read" are on every page
    and one program, frobtool, is described in its own section only."""
    sections = []
    for name, does in MANUAL_PROGRAMS * 3:
        sections.append(
            f"## The {name} program\n\nThe {name} program {does}. The program reads its"
            " input from the files named on the command line, or from standard input when"
            f" none is named. Each program of this manual reads its options first.\n"
        )
    sections.insert(
        9,
        "## The frobtool program\n\n"
        "Frobtool merges the sorted lists given to it into one sorted list.\n\n"
        "Frobtool keeps the first of two equal entries and drops the second.\n\n"
        "Frobtool writes the merged list to the file named by its -o option.\n\n"
        "Frobtool stops at the first list that is not sorted and names it.\n",
    )
    path = tmp_path / "manual.md"
    path.write_text("# A manual of small programs\n\n" + "\n".join(sections), encoding="utf-8")
    return path


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_a_question_with_common_words_is_answered_through_the_cli(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "What does the frobtool program do and what input does it read?"
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa", "--inner", inner,
                    "--query", question, "--doc", str(manual_like(tmp_path)),
                    "--out", str(tmp_path / "out"), "--maxIters", "2"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    answer = str(result["output"]["answer"])
    assert (code, result["status"]) == (0, "passed"), answer
    lines = answer.splitlines()
    assert len(lines) >= 3 and all("Frobtool" in line for line in lines), answer


def function_manual(tmp_path: Path) -> Path:
    """A library manual where every function's section speaks of input and output buffers
    that may be too small, and one, frob_pack, says what it returns then."""
    sections = []
    for name in ["frob_copy", "frob_read", "frob_scan", "frob_trim", "frob_join", "frob_fill"]:
        sections.append(
            f"## {name}\n\n{name.capitalize()} works on the input buffer and the output buffer"
            " the caller provides. Because the output buffer supplied by the caller can be"
            " arbitrarily small, the caller checks its size first. The output buffer is"
            " too small when it holds fewer bytes than the input buffer.\n"
        )
    sections.insert(
        3,
        "## frob_pack\n\n"
        "The frob_pack function packs the input buffer into the output buffer.\n\n"
        "frob_pack returns FROB_FULL when the output buffer is too small for the packed data.\n\n"
        "frob_pack returns FROB_OK when every byte of the input fits.\n\n"
        "frob_pack leaves the output buffer unchanged when it returns FROB_FULL.\n",
    )
    path = tmp_path / "library.md"
    path.write_text("# The frob library\n\n" + "\n".join(sections), encoding="utf-8")
    return path


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_only_lines_that_answer_are_supported_through_the_cli(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "What does frob_pack return when the output buffer is too small?"
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa", "--inner", inner,
                    "--query", question, "--doc", str(function_manual(tmp_path)),
                    "--out", str(tmp_path / "out"), "--maxIters", "2"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    answer = str(result["output"]["answer"])
    assert (code, result["status"]) == (0, "passed"), answer
    assert "FROB_FULL" in answer
    assert all("frob_pack" in line for line in answer.splitlines()), answer


def test_a_quote_after_a_title_is_no_fragment_when_the_window_starts_inside_a_line() -> None:
    quote = "The following graph compares the cumulative total shareholder return of the shares."
    window = f"ontents\nPerformance Graph\n{quote}\nNext."
    assert not starts_mid_sentence(quote, window)
    # A line the cut first line runs on into, in lower case, is still inside its sentence.
    wrapped = "ended the year with the board of\ndirectors approving the plan."
    assert starts_mid_sentence("directors approving the plan.", wrapped)
