"""What was read: a scripted run's coverage is exactly the spans its cells, ``grep``,
``read``, ``llm_map`` and ``retrieve`` showed the agent, merged into each document's own
text, reported as ``CoverageUpdated`` at a bounded rate and kept in the trace and outcome."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2

from ralph_tui.agents.llm_map import LLMMap
from ralph_tui.agents.printed import printed_lines, printed_spans
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.documents import Document, assemble
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.events import BaseEvent, CoverageUpdated, TextRead
from ralph_tui.evidence import Coverage, DocumentCoverage, answers_absence, merge_spans
from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.operators import Operators
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.loops.coverage import CoverageTracker, coverage_of, document_places, is_search_term
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.loops.test_sdk_run import ALL_SUPPORTED, settings_for, worker_reply

DOCUMENT = (
    "The reservoir holds two days of supply.\n"
    "Filters are backwashed every 48 hours.\n"
    "Chlorine is dosed to 0.5 mg/L at the outlet.\n"
    "Alarms escalate after 10 minutes.\n"
)
QUOTES = [
    "The reservoir holds two days of supply.",
    "Filters are backwashed every 48 hours.",
    "Alarms escalate after 10 minutes.",
]


def line_of(text: str, word: str) -> tuple[int, int]:
    start = text.index(word)
    start = text.rfind("\n", 0, start) + 1
    return start, text.index("\n", start)


async def test_a_scripted_rlm_run_reports_exactly_what_its_cells_read(tmp_path: Path) -> None:
    cells = [
        "print(context[0:39])",
        "import re\nm = re.search('backwash', context)\n"
        "print(context[m.start() - 10:m.end() + 20])\nprint('Chlorine' in context)",
        "print(grep('Alarms')['hits'][0]['line'])",
        "chunks = context.split('\\n\\n')",
        "import json\nfor line in context.splitlines():\n    if line.startswith('Chlorine'):\n"
        "        print(json.dumps(line))",
    ]
    replies = [worker_reply({"code": code, "resultReady": False}) for code in cells]
    bullets = "- Two days of supply.\n- Backwash every 48 hours.\n- Alarms escalate."
    answer = {"answer": bullets, "evidence": QUOTES, "resultReady": True}
    scripts = {
        "anthropic.test": [*replies, worker_reply(answer)],
        "openai.test": [ALL_SUPPORTED],
    }

    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=scripts[request.url.host].pop(0))

    document = tmp_path / "doc.txt"
    document.write_text(DOCUMENT)
    settings = settings_for(tmp_path, max_iters=1)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(mode="qa", query="How is the plant run?", doc_path=document, settings=settings),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle)),
    )
    assert outcome.status == "passed", outcome.error

    at = DOCUMENT.index("backwash")
    shown = [line_of(DOCUMENT, "Chlorine"), line_of(DOCUMENT, "Alarms")]  # printed, not sliced
    expected = merge_spans([(0, 39), (at - 10, at + len("backwash") + 20), *shown])
    [trace] = TraceStore(settings.out_dir).iterations(outcome.session_id)
    assert trace.coverage is not None
    [read] = trace.coverage.documents
    assert read.document == "doc.txt" and read.chars == len(DOCUMENT)
    assert read.spans == expected
    assert trace.coverage.searches == ["backwash", "Chlorine", "Alarms"], "not the '\\n\\n' split"
    assert trace.coverage.read_chars == sum(end - start for start, end in expected)
    assert outcome.coverage == trace.coverage
    assert outcome.to_json()["coverage"]["share"] == trace.coverage.share

    updates = [e for e in events if isinstance(e, CoverageUpdated)]
    assert updates and updates[-1].iteration == 1 and updates[-1].coverage == trace.coverage
    assert not [e for e in events if isinstance(e, TextRead)], "folded in, not passed on"
    log = settings.out_dir / "sessions" / outcome.session_id / "events.jsonl"
    assert '"type":"coverage_updated"' in log.read_text()
    on_disk = json.loads((log.parent / "iter-01.json").read_text())
    assert on_disk["coverage"]["documents"][0]["spans"] == [list(span) for span in expected]


def operators(events: list[BaseEvent], document: str = DOCUMENT) -> Operators:
    context = ActiveContext("sys", MessageStore(), Budget(soft=10_000, hard=20_000))
    return Operators(context, document, events.append, "worker", read_limit=20)


async def test_lcm_grep_hits_and_read_windows_are_the_lines_and_spans_shown() -> None:
    events: list[BaseEvent] = []
    ops = operators(events)
    await ops.grep("Chlor|Alarm")
    await ops.grep("nothing like this")
    await ops.grep("fact", scope="messages")
    await ops.read(5, 100)
    reads = [e for e in events if isinstance(e, TextRead)]
    assert [(r.via, r.spans, r.searches) for r in reads] == [
        ("grep", [line_of(DOCUMENT, "Chlorine"), line_of(DOCUMENT, "Alarms")], ["Chlor|Alarm"]),
        ("grep", [], ["nothing like this"]),
        ("read", [(5, 25)], []),
    ]


async def test_a_long_line_grep_hit_reads_only_the_snippet_shown() -> None:
    events: list[BaseEvent] = []
    long_line = "x " * 400 + "saffron" + " y" * 400
    found = await operators(events, long_line).grep("saffron")
    [read] = [e for e in events if isinstance(e, TextRead)]
    [(start, end)] = read.spans
    assert long_line[start:end] == found["hits"][0]["line"] and end - start == 200


async def test_llm_map_span_items_are_read() -> None:
    events: list[BaseEvent] = []
    runner = SubQueryRunner(OfflineClient(), SubQueryBudget(limit=10), events.append, agent="w")
    mapped = LLMMap(runner, DOCUMENT)
    await mapped([[0, 10], "a free text item", [40, 50_000]], "What is it?")
    [read] = [e for e in events if isinstance(e, TextRead)]
    assert read.via == "llm_map" and read.spans == [(0, 10), (40, len(DOCUMENT))]


def two_documents() -> tuple[str, list[Document]]:
    pages = ["Page one text.", "Page two is longer text.", "Page three."]
    guide = "Intro line.\n# Saffron\nSteep it.\n# Rice\nSimmer 18 minutes.\n"
    documents = [
        Document(
            "manual.pdf", Path("manual.pdf"), "pdf", "c", "s", PAGE_SEPARATOR.join(pages), pages
        ),
        Document("guide.md", Path("guide.md"), "markdown", "c", "s", guide),
    ]
    return guide, documents


def test_spans_of_the_joined_text_become_spans_of_each_document() -> None:
    guide, documents = two_documents()
    corpus = assemble(documents)
    places = document_places(corpus, corpus.text, "ignored")
    manual, second = corpus.table
    spans = [
        (0, manual["start"] + 4),  # the header line, then the manual's first four characters
        (manual["start"] + 2, manual["start"] + 6),
        (manual["end"] - 3, second["start"] + 5),  # across the end of one and into the next
        (second["end"] - 2, second["end"] + 10),
    ]
    coverage = coverage_of(places, spans, ["saffron"])
    pdf, markdown = coverage.documents
    assert pdf.spans == [(0, 6), (manual["end"] - manual["start"] - 3, pdf.chars)]
    assert pdf.section_kind == "page" and pdf.sections == [(0, 14), (16, 40), (42, 53)]
    assert markdown.spans == [(0, 5), (len(guide) - 2, len(guide))]
    assert markdown.section_kind == "section"
    assert markdown.sections == [(0, 12), (12, 32), (32, len(guide))]
    assert pdf.shares(pdf.sections) == [6 / 14, 0.0, 3 / 11]
    assert coverage.read_chars == 6 + 3 + 5 + 2 and coverage.total_chars == 53 + len(guide)


def test_a_document_without_pages_or_headings_has_no_sections() -> None:
    [place] = document_places(None, "plain text, no headings", "notes.txt")
    assert (place.name, place.start, place.end, place.sections) == ("notes.txt", 0, 23, [])


def test_coverage_is_reported_at_a_bounded_rate_and_once_at_the_end() -> None:
    sent: list[BaseEvent] = []
    now = [0.0]
    places = document_places(None, "x" * 1000, "doc.txt")
    tracker = CoverageTracker(3, places, sent.append, interval_s=0.5, clock=lambda: now[0])
    tracker.add([(0, 10)], ["saffron"])
    now[0] = 0.1
    tracker.add([(20, 30)])
    tracker.observe(TextRead(agent="w", via="cell", spans=[(25, 40)]))
    now[0] = 0.7
    tracker.add([(0, 5)], ["saffron"])  # nothing new, but the held-back change goes out
    now[0] = 1.5
    tracker.add([(0, 5)], ["saffron"])  # nothing new, nothing held back: nothing goes out
    now[0] = 1.6
    tracker.add([(50, 60)], ["\\n\\n", "(?i)\\bsimmer"])
    tracker.finish()
    shares = [(e.iteration, e.coverage.read_chars) for e in sent if isinstance(e, CoverageUpdated)]
    assert shares == [(3, 10), (3, 30), (3, 40), (3, 40)]
    assert tracker.coverage().searches == ["saffron", "(?i)\\bsimmer"]


def test_search_terms_name_words_not_structure() -> None:
    assert all(map(is_search_term, ["saffron", "(?i)\\bsimm(er|ering)", "How long?", "Äpfel"]))
    assert not any(map(is_search_term, ["\\n\\n", "\\w+", "[A-Za-z]+", "\\.\\s", "(?i)\\d+"]))


def test_an_answer_of_absence_says_what_was_searched_and_read() -> None:
    coverage = Coverage(
        documents=[DocumentCoverage(document="d", chars=1000, spans=[(0, 40)])],
        searches=["saffron", "simmer"],
    )
    assert coverage.describe() == "searched the whole text for: saffron, simmer; read 4 % of it"
    quiet = Coverage(documents=[DocumentCoverage(document="d", chars=1000, spans=[(0, 4)])])
    assert quiet.describe() == "searched nothing; read under 1 % of it"
    lacking = "- The document does not address this question; it lacks: saffron"
    assert answers_absence({"answer": lacking, "evidence": []})
    assert answers_absence({"answer": "- It is not mentioned.", "evidence": ["q"]})
    assert not answers_absence({"answer": "- Simmer 18 minutes.", "evidence": ["q"]})
    assert not answers_absence({"output": "a task's output"}) and not answers_absence(None)
    assert re.fullmatch(r"\d+ %", coverage.describe().rsplit("read ", 1)[1].removesuffix(" of it"))


def test_output_lines_are_placed_in_the_document_however_the_code_got_them() -> None:
    text = "Short line.\n" + "A sentence long enough to place in the text, surely.\n" * 2
    output = '3 hits\n"A sentence long enough to place in the text, surely."\nShort line.\n'
    assert printed_lines(output) == ["A sentence long enough to place in the text, surely."]
    second = (text.rindex("A sentence"), len(text) - 1)
    assert printed_spans(text, output) == [(12, 12 + 52)]
    assert printed_spans(text, output, known=[(second[0] - 1, len(text))]) == [second]
    assert printed_spans(text, "A line of forty characters or more that is not there.") == []
