"""What the offline RLM worker's search cell reads, as the real child records it: it
searches ``context`` for each word of the question (not its stop words) and reads the
paragraphs around the hits, nothing else of the text."""

from __future__ import annotations

from conftest import OpenSandbox

from ralph_tui.llm.offline import worker
from ralph_tui.llm.offline.constraints import Steering

FILLER = "The plant keeps its records in the control room by the main gate."
PARAGRAPHS = [
    " ".join([FILLER] * 3),
    "Saffron threads are steeped in warm milk before they are added to the pot.",
    " ".join([FILLER] * 3),
    "Let the rice simmer for eighteen minutes, then rest it covered.",
    " ".join([FILLER] * 3),
]
DOCUMENT = "\n\n".join(PARAGRAPHS)


def span_of(paragraph: str) -> tuple[int, int]:
    start = DOCUMENT.index(paragraph)
    return start, start + len(paragraph)


async def test_the_search_cell_searches_the_question_words_and_reads_around_the_hits(
    open_sandbox: OpenSandbox,
) -> None:
    sandbox = await open_sandbox(globals={"context": DOCUMENT})
    code = worker.search_code("How long should saffron simmer?", Steering())
    result = await sandbox.execute(code)
    assert result.error is None, result.error
    assert list(result.reads.searches) == ["saffron", "simmer", "long"]
    assert list(result.reads.spans) == [span_of(PARAGRAPHS[1]), span_of(PARAGRAPHS[3])]
    assert worker.printed_terms(result.output) == ["saffron", "simmer"]


async def test_a_word_the_text_lacks_reads_nothing(open_sandbox: OpenSandbox) -> None:
    sandbox = await open_sandbox(globals={"context": DOCUMENT})
    result = await sandbox.execute(worker.search_code("Where is the zeppelin hangar?", Steering()))
    assert result.error is None, result.error
    assert list(result.reads.searches) == ["zeppelin", "hangar"]
    assert result.reads.spans == () and worker.printed_terms(result.output) == []
