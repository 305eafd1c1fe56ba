"""The offline worker and judges read words as ``ralph_tui.words`` folds them, in the
sandbox and on the host alike; the worker quotes fetched pages; the task roles keep to
whole passages on the task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph_tui.llm.offline import roles, worker
from ralph_tui.llm.offline.constraints import Steering
from ralph_tui.llm.offline.sentences import sentences_of, table_rows_of
from ralph_tui.llm.offline.text import Asked
from ralph_tui.sandbox import Sandbox
from tests.offline.judging import offline_judgement
from tests.offline.test_offline_client import run_worker

DATA = Path(__file__).parent / "data"
TERMINATED = (
    "If your rights have been terminated and not permanently reinstated, you do not qualify"
    " to receive new licenses for the same material under section 10."
)


def test_the_judge_sees_an_inflected_answer_address_the_question() -> None:
    judgement = offline_judgement(
        "When does the license terminate?",
        {"answer": f"- {TERMINATED}", "evidence": [TERMINATED], "lineQuotes": [[1]]},
    )
    assert judgement.ok and judgement.issues == []
    assert [claim.verdict for claim in judgement.claims] == ["supported"]


def test_the_judge_names_the_question_words_a_bullet_lacks() -> None:
    void = "Any attempt otherwise to propagate or modify it is void."
    judgement = offline_judgement(
        "When does the license terminate?",
        {"answer": f"- {void}", "evidence": [void], "lineQuotes": [[1]]},
    )
    assert not judgement.ok
    assert [claim.verdict for claim in judgement.claims] == ["unsupported"], "it answers nothing"
    assert any("license, terminate" in issue for issue in judgement.issues)


async def test_the_workers_term_of_a_camel_case_name_finds_it() -> None:
    manual = (DATA / "libtasn1.info.txt").read_text(encoding="utf-8")
    query = "What does asn1Coding do?"
    assert worker.search_terms(query) == ["asn1cod"]
    result = await run_worker(query, manual)
    assert result["evidence"]
    assert all("asn1Coding" in quote for quote in result["evidence"])
    judgement = offline_judgement(query, result)
    assert judgement.ok, judgement


async def test_a_long_sentence_is_quoted_from_its_start_piece_by_piece() -> None:
    sentence = (
        "Among the options, -c or --check checks the syntax only, -o or --output=FILE names"
        " the output file, -n or --name=NAME names the array, and -h or --help shows the"
        " help text of asn1Coding and exits."
    )
    document = f"Invoking the tools\n\n{sentence}\n"
    query = "What does asn1Coding show for --help?"
    result = await run_worker(query, document)
    # The clause naming asn1Coding stands past a quote's 160 characters: the line quotes the
    # sentence from its start in two pieces, never the clause alone from inside it.
    assert result["lineQuotes"] == [[1, 2]]
    first, second = result["evidence"]
    assert sentence.startswith(first) and sentence.endswith(second)
    assert "asn1Coding" in second and offline_judgement(query, result).ok


async def test_the_worker_quotes_a_fetched_page_that_retrieve_returns() -> None:
    page = (
        "The libffi library aligns each structure member to its natural alignment. "
        "A structure passed by value through libffi keeps that alignment on every platform."
    )
    asked: list[tuple[str, list[str] | None]] = []

    def retrieve(query: str, k: int = 5, sources: list[str] | None = None) -> list[dict[str, Any]]:
        asked.append((query, sources))
        if sources != ["external"]:
            return []
        return [
            {"text": page, "source": "external", "url": "https://example.org/ffi", "span": [0, 9]}
        ]

    query = "How does libffi align structure members?"
    document = (DATA / "GPL-3.txt").read_text(encoding="utf-8")
    assert (await run_worker(query, document))["evidence"] == []
    result = await run_worker(query, document, functions={"retrieve": retrieve})
    # Each source on its own, never the baseline's own past episodes.
    assert asked == [(query, ["doc"]), (query, ["external"])]
    assert result["evidence"] and all(quote in page for quote in result["evidence"])


async def test_the_search_runs_in_the_sandbox_as_on_the_host() -> None:
    query = "What does asn1Coding do?"
    manual = (DATA / "libtasn1.info.txt").read_text(encoding="utf-8")
    code = worker.search_code(query, Steering())
    async with await Sandbox.start(globals={"context": manual}) as sandbox:
        result = await sandbox.execute(code)
    assert result.error is None, result.error
    host = await run_worker(query, manual)
    assert worker.printed_passages(result.output)
    answer = worker.qa_output(worker.printed_passages(result.output), query, result.output,
                              Steering())  # fmt: skip
    assert {**answer, "resultReady": True} == host


def brief_of(*passages: str) -> str:
    return "\n".join(
        ["Passages of the document relevant to the task:", *map("- {}".format, passages)]
    )


TASK = "Summarise how bzip2 recovers data from damaged files"
ON_TASK = "You can use `bzip2recover` to try to recover data from damaged files."
DISCLAIMER = (
    "IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT DAMAGES (INCLUDING LOSS OF USE,"
    " DATA, OR PROFITS) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE."
)


def test_a_wrapped_passage_stays_whole_in_the_brief_and_verbatim_in_its_passages() -> None:
    wrapped = "`bzip2` is built on top of\n`libbzip2`, a library."
    brief = worker.brief_output([wrapped])
    assert "- [P1] `bzip2` is built on top of `libbzip2`, a library." in str(brief["brief"])
    assert brief["passages"] == [wrapped]


def test_the_reasoner_writes_from_whole_passages_on_the_task() -> None:
    brief = brief_of(ON_TASK, DISCLAIMER, "`bzip2` is built on top of", "damaged files data")
    written = roles.reasoner({"task": TASK, "brief": brief})
    assert written["output"].splitlines()[1:] == [f"- {ON_TASK}"]


def test_the_task_judge_fails_fragments_and_passages_off_the_task() -> None:
    def categories(output: str) -> list[str]:
        verdict = roles.task_judge({"task": TASK, "output": output, "brief": brief_of(output)})
        return [issue["category"] for issue in verdict["issues"]]

    assert "off_task" in categories(f"Findings:\n- {ON_TASK}\n- {DISCLAIMER}")
    assert "fragment" in categories(f"Findings:\n- {ON_TASK}\n- `bzip2` is built on top of")
    assert not {"off_task", "fragment"} & set(categories(f"Findings:\n- {ON_TASK}"))


def test_a_task_is_addressed_by_half_its_terms_or_one_of_its_phrases() -> None:
    asked = Asked.task("Summarize the maintenance schedule and the staff responsible for each item")
    assert asked.addressed_by("Planned maintenance is scheduled by the Supervisor.")
    assert not asked.addressed_by("Maintenance staff work days only.")
    assert not Asked.task(TASK).addressed_by(DISCLAIMER)
    assert Asked.task(TASK).addressed_by(ON_TASK)


def test_a_question_naming_what_the_sources_lack_is_not_answered() -> None:
    query = "Which Python version does the interpreter require?"
    observation = worker.FOUND_PREFIX + '["version", "requir", "interpret"]'
    passages = ["Unless required by applicable law, the interpreter version is 2.0 here."]
    answer = worker.qa_output(passages, query, observation, Steering())
    assert answer["evidence"] == [] and "lacks: python" in str(answer["answer"])


def test_a_tables_rows_are_named_by_its_header_under_its_heading() -> None:
    text = (
        "### 10.1 Planned maintenance schedule\n\nThe table lists the tasks.\n\n"
        "| Task | Frequency |\n|------|-----------|\n| Isolation valves exercised | Quarterly |\n"
        "| UV lamps replaced | |\n\nAfter the table."
    )
    heading = "10.1 Planned maintenance schedule"
    assert table_rows_of(text) == [
        f"{heading}: Task: Isolation valves exercised; Frequency: Quarterly.",
        f"{heading}: Task: UV lamps replaced.",
    ]
    assert not any("Isolation" in sentence for sentence in sentences_of(text))


def test_a_converted_tables_tab_separated_rows_are_named_under_its_heading() -> None:
    text = (
        "Spare parts\n\nPart\tStock\nMechanical seal\t4\nImpeller\t\n\n"
        "Spare parts are counted on the first working day of every month."
    )
    assert table_rows_of(text) == [
        "Spare parts: Part: Mechanical seal; Stock: 4.",
        "Spare parts: Part: Impeller.",
    ]
    assert sentences_of(text) == [
        "Spare parts are counted on the first working day of every month."
    ]


def test_a_sentence_wrapped_around_inline_code_stays_one_sentence() -> None:
    html_text = (
        "`bzip2` compresses files\nusing the Burrows-Wheeler block sorting text compression\n"
        "algorithm, and Huffman coding.\n\nThe manual starts here\n3.2 Invoking asn1Coding\n"
        "asn1Coding generates a DER encoding from a file."
    )
    assert sentences_of(html_text) == [
        "`bzip2` compresses files\nusing the Burrows-Wheeler block sorting text compression\n"
        "algorithm, and Huffman coding.",
        "asn1Coding generates a DER encoding from a file.",
    ]
