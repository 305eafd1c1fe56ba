"""``look(page, question)``: the picture of a PDF page sent to the sub-model through both
SDKs' wire formats (from the real sandbox and as an LCM tool), refused for a text-only
model, answered from the page's text offline, counted and cached like ``llm_query``, and
every bad argument a model may pass refused in one line."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.lcm_agent import lcm_agent_forward
from ralph_tui.agents.look import MAX_QUESTION_CHARS, PageLook, look_function, no_images
from ralph_tui.agents.rlm import rlm_agent_forward
from ralph_tui.agents.sub_cache import SubCallCache, answer_key
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.documents import page_images, read_corpus
from ralph_tui.documents.corpus import Corpus
from ralph_tui.documents.page_images import MAX_EDGE, MAX_PIXELS, DocumentPages
from ralph_tui.events import SubQuery
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.models import accepts_images
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.tokens import image_tokens
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from ralph_tui.loops.context import DOCUMENTS_VARIABLE
from tests.agents.conftest import Recorder, reply_tool, tool_use
from tests.documents.fixtures import write_pdf
from tests.llm.llm_wire import FakeAPI, anthropic_message, openai_completion

BOX = (56, 600, 336, 770)
"""Where the fixture draws its filled box on a page without text (PDF points, from the
bottom left of a 595 x 842 page)."""


class Answer(BaseModel):
    answer: str


def spec() -> RLMSpec[Answer]:
    return RLMSpec(name="worker", definition="Answer.", output_model=Answer)


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    """A report whose page 2 is a figure (ink, no text layer), and a Markdown note."""
    write_pdf(tmp_path / "report.pdf", [["Revenue grew 12 percent in 2023."], [], ["Notes."]])
    (tmp_path / "notes.md").write_text("Notes text.")
    return read_corpus([tmp_path / "report.pdf", tmp_path / "notes.md"])


def variables(corpus: Corpus) -> dict[str, AgentVariable]:
    return {
        "context": AgentVariable(corpus.text, "The documents."),
        "documents": AgentVariable(corpus.table, DOCUMENTS_VARIABLE),
    }


def pages_of(corpus: Corpus) -> DocumentPages:
    return DocumentPages(corpus.documents, 1 << 26)


def anthropic_sub(api: FakeAPI, model: str = "claude-haiku-4-5") -> AnthropicClient:
    http = api.http_client()
    return AnthropicClient(
        model, api_key="sk-ant-test", base_url="https://anthropic.test", http_client=http
    )


def openai_sub(api: FakeAPI, model: str = "gpt-4o-mini", **options: Any) -> OpenAIClient:
    return OpenAIClient(
        model,
        api_key="sk-test",
        base_url="https://openai.test/v1",
        http_client=api.http_client(),
        **options,
    )


def assert_page_two(png: bytes) -> None:
    """``png`` is page 2 of the fixture: the filled box is dark where it is drawn, the
    rest of the page white, within the render bounds."""
    image = Image.open(io.BytesIO(png)).convert("L")
    assert image.width * image.height <= MAX_PIXELS and max(image.size) <= MAX_EDGE
    scale = image.width / 595
    left, bottom, right, top = BOX
    inside = ((left + right) / 2 * scale, (842 - (bottom + top) / 2) * scale)
    assert image.getpixel(inside) < 40, "the box of page 2 is drawn"
    assert image.getpixel((image.width // 2, image.height - 10)) > 230, "the rest is blank"


async def look_in_the_sandbox(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, corpus: Corpus, sub: Any, call: str
) -> Any:
    """An RLM run over ``corpus`` whose one cell prints ``call`` (a ``look``) and whose next
    turn answers "a box"; ``sub`` answers the look."""
    reply_tool(api, {"code": f"print({call})", "resultReady": False})
    reply_tool(api, {"answer": "a box", "resultReady": True})
    return await explore_with_look(rlm_agent_forward, claude, events, corpus, sub)


async def look_as_a_tool(
    api: FakeAPI,
    claude: AnthropicClient,
    events: Recorder,
    corpus: Corpus,
    sub: Any,
    arguments: dict[str, Any],
) -> None:
    """An LCM run over ``corpus`` whose first turn calls the ``look`` tool with
    ``arguments`` and whose next answers "a box"; ``sub`` answers the look."""
    api.reply(200, anthropic_message([tool_use(arguments, "look")], stop_reason="tool_use"))
    reply_tool(api, {"answer": "a box"})
    await explore_with_look(lcm_agent_forward, claude, events, corpus, sub)


async def explore_with_look(
    forward: Any, claude: AnthropicClient, events: Recorder, corpus: Corpus, sub: Any
) -> Any:
    """``forward`` (the RLM or the LCM loop) over ``corpus`` with ``look`` over its pages."""
    return await forward(
        claude,
        spec(),
        {"query": "q"},
        variables(corpus),
        sub_client=sub,
        emit=events,
        look=PageLook(pages_of(corpus), no_images=None),
    )


async def test_sandbox_code_looks_at_a_page_through_anthropic_image_blocks(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, corpus: Corpus
) -> None:
    sub_api = FakeAPI()
    sub_api.reply(200, anthropic_message([{"type": "text", "text": "A black rectangle."}]))
    call = "look(2, 'What does the figure show?')"
    result = await look_in_the_sandbox(api, claude, events, corpus, anthropic_sub(sub_api), call)
    assert result.output == Answer(answer="a box")
    system = api.bodies[0]["system"][0]["text"]
    assert "`look(page, question, document=None) -> str`" in system
    tool_result = api.bodies[1]["messages"][-1]["content"][-1]
    assert "A black rectangle." in json.dumps(tool_result["content"])

    [request] = sub_api.bodies
    image, text = request["messages"][0]["content"]
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert_page_two(base64.b64decode(image["source"]["data"]))
    assert text["type"] == "text" and "page 2 of report.pdf" in text["text"]
    assert "Question: What does the figure show?" in text["text"]
    [sub] = events.of(SubQuery)
    assert sub.calls_used == 1 and sub.answer_preview == "A black rectangle." and not sub.error


async def test_the_lcm_look_tool_sends_an_openai_image_url(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, corpus: Corpus
) -> None:
    sub_api = FakeAPI()
    sub_api.reply(200, openai_completion({"content": "A dark box."}))
    arguments = {"page": 2, "question": "What is drawn?", "document": "report.pdf"}
    await look_as_a_tool(api, claude, events, corpus, openai_sub(sub_api), arguments)
    assert "look" in [tool["name"] for tool in api.bodies[0]["tools"]]
    assert "A dark box." in json.dumps(api.bodies[1]["messages"][-1]["content"])
    [request] = sub_api.bodies
    image, text = request["messages"][0]["content"]
    assert image["type"] == "image_url" and image["image_url"]["detail"] == "high"
    prefix = "data:image/png;base64,"
    assert image["image_url"]["url"].startswith(prefix)
    assert_page_two(base64.b64decode(image["image_url"]["url"][len(prefix) :]))
    assert text["type"] == "text" and "Question: What is drawn?" in text["text"]


def runner_for(client: Any, events: Recorder, cache: SubCallCache | None = None) -> SubQueryRunner:
    return SubQueryRunner(client, SubQueryBudget(limit=10), events, agent="worker", cache=cache)


async def test_a_text_only_sub_model_is_refused_in_one_line_and_nothing_is_paid(
    events: Recorder, corpus: Corpus
) -> None:
    sub_api = FakeAPI()
    client = openai_sub(sub_api, "qwen2.5:7b")
    why_not = no_images("auto", client.provider, client.model)
    runner = runner_for(client, events)
    answer = await look_function(runner, PageLook(pages_of(corpus), why_not))(2, "What is it?")
    assert answer == (
        "[error] look: the sub-model openai:qwen2.5:7b does not take images (if it does, set "
        "--sub-images on); read the text of page 2 of report.pdf instead"
    )
    assert sub_api.requests == [] and runner.budget.used == 0


async def test_the_offline_baseline_answers_from_the_page_text(
    events: Recorder, corpus: Corpus
) -> None:
    runner = runner_for(OfflineClient(role="sub"), events)
    look = look_function(runner, PageLook(pages_of(corpus), no_images="offline"))
    answer = await look(1, "How much did revenue grow?")
    assert "Revenue grew 12 percent in 2023." in answer
    assert runner.budget.used == 1 and len(events.of(SubQuery)) == 1
    no_text = await look(2, "What is drawn?")
    assert no_text == (
        "[error] look: page 2 of report.pdf has no text, and the offline baseline reads none"
    )


async def test_a_look_is_counted_and_a_second_identical_one_comes_from_the_cache(
    events: Recorder, corpus: Corpus, tmp_path: Path
) -> None:
    sub_api = FakeAPI()
    for text in ("first answer", "second answer"):
        sub_api.reply(200, openai_completion({"content": text}, prompt_tokens=1600))
    ledger = UsageLedger()
    client = MeteredClient(openai_sub(sub_api), ledger)
    cache = SubCallCache(tmp_path / "subcalls.sqlite", "session:s1", 1 << 20)
    runner = runner_for(client, events, cache)
    look = look_function(runner, PageLook(pages_of(corpus), no_images=None))

    assert await look(2, "What is drawn?") == "first answer"
    assert await look(2, "What is drawn?") == "first answer"
    assert len(sub_api.requests) == 1 and runner.budget.used == 1
    totals = ledger.snapshot()
    assert totals.calls == 1 and totals.input_tokens == 1600 and totals.saved_calls == 1
    paid, hit = events.of(SubQuery)
    assert not paid.cached and hit.cached and hit.input_tokens == 1600

    assert await look(3, "What is drawn?") == "second answer", "another page is another image"
    assert len(sub_api.requests) == 2 and runner.budget.used == 2


@pytest.mark.parametrize(
    ("page", "question", "document", "refusal"),
    [
        (10**9, "q", None, "report.pdf has pages 1 to 3; page 1000000000 is not one"),
        (0, "q", None, "page 0 is not one"),
        (-1, "q", None, "page -1 is not one"),
        ("2", "q", None, "page must be a whole page number, not str"),
        (True, "q", None, "page must be a whole page number, not bool"),
        (2.0, "q", None, "page must be a whole page number, not float"),
        (1, "q", "notes.md", "notes.md is a markdown document, not a PDF or an image"),
        (
            1,
            "q",
            "../../etc/passwd",
            "no document is named '../../etc/passwd'; PDFs and images: 'report.pdf'",
        ),
        (1, "q", ["report.pdf"], "document must be a name, not list"),
        (1, "", None, "question must be a non-empty string"),
        (1, None, None, "question must be a non-empty string"),
        (1, "x" * (MAX_QUESTION_CHARS + 1), None, "ask in at most 4,000"),
    ],
)
async def test_bad_arguments_are_refused_before_anything_is_rendered_or_paid(
    events: Recorder,
    corpus: Corpus,
    page: object,
    question: object,
    document: object,
    refusal: str,
) -> None:
    sub_api = FakeAPI()
    runner = runner_for(openai_sub(sub_api), events)
    look = look_function(runner, PageLook(pages_of(corpus), no_images=None))
    answer = await look(page, question, document)
    assert answer.startswith("[error] look: ") and refusal in answer and "\n" not in answer
    assert sub_api.requests == [] and runner.budget.used == 0


async def test_several_pdfs_need_a_document_name(tmp_path: Path, events: Recorder) -> None:
    write_pdf(tmp_path / "a.pdf", [["Alpha plant output fell sharply."]])
    write_pdf(tmp_path / "b.pdf", [["Bravo plant output rose sharply."]])
    corpus = read_corpus([tmp_path / "a.pdf", tmp_path / "b.pdf"])
    runner = runner_for(OfflineClient(role="sub"), events)
    look = look_function(runner, PageLook(pages_of(corpus), no_images="offline"))
    answer = await look(1, "q")
    assert answer == (
        "[error] look: 2 PDF or image documents; say which with document=NAME (one of "
        "'a.pdf', 'b.pdf')"
    )
    assert "Bravo plant" in await look(1, "How did plant output change?", "b.pdf")


async def test_a_file_changed_since_it_was_read_is_not_rendered(
    events: Recorder, corpus: Corpus, tmp_path: Path
) -> None:
    write_pdf(tmp_path / "report.pdf", [["Swapped."], [], []])
    sub_api = FakeAPI()
    runner = runner_for(openai_sub(sub_api), events)
    look = look_function(runner, PageLook(pages_of(corpus), no_images=None))
    answer = await look(2, "What is drawn?")
    assert answer == "[error] look: report.pdf changed on disk since the run read it; not rendered"
    assert sub_api.requests == []


async def test_a_pipe_put_in_place_of_the_file_is_refused(
    events: Recorder, corpus: Corpus, tmp_path: Path
) -> None:
    (tmp_path / "report.pdf").unlink()
    os.mkfifo(tmp_path / "report.pdf")
    runner = runner_for(openai_sub(FakeAPI()), events)
    answer = await look_function(runner, PageLook(pages_of(corpus), None))(2, "What is drawn?")
    assert answer == (
        "[error] look: report.pdf cannot be read again to render (no longer a regular file)"
    )


async def test_a_page_that_does_not_render_in_time_is_refused(
    events: Recorder, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page_images, "RENDER_TIMEOUT_S", 0.001)
    sub_api = FakeAPI()
    runner = runner_for(openai_sub(sub_api), events)
    answer = await look_function(runner, PageLook(pages_of(corpus), None))(2, "What is drawn?")
    assert answer.startswith("[error] look: page 2 of report.pdf did not render in ")
    assert sub_api.requests == [] and runner.budget.used == 0


async def test_a_picture_past_the_sub_models_window_is_refused(
    events: Recorder, corpus: Corpus
) -> None:
    sub_api = FakeAPI()
    runner = runner_for(openai_sub(sub_api, "gpt-4o-mini", context_window=3000), events)
    answer = await look_function(runner, PageLook(pages_of(corpus), None))(2, "What is drawn?")
    assert answer.startswith("[error] Sub-prompt refused") and "and a picture" in answer
    assert sub_api.requests == []


async def test_a_look_without_reported_usage_counts_the_picture(
    events: Recorder, corpus: Corpus
) -> None:
    sub_api = FakeAPI()
    sub_api.reply(200, openai_completion({"content": "A box."}, prompt_tokens=0))
    ledger = UsageLedger()
    runner = runner_for(MeteredClient(openai_sub(sub_api), ledger), events)
    await look_function(runner, PageLook(pages_of(corpus), None))(2, "What is drawn?")
    totals = ledger.snapshot()
    rendered = await pages_of(corpus).render(corpus.documents[0], 2)
    picture = image_tokens(rendered.width, rendered.height)
    assert totals.estimated_calls == 1 and totals.input_tokens > picture > 1000


def test_image_input_is_declared_per_model_and_the_setting_overrides_it() -> None:
    assert accepts_images("anthropic", "claude-sonnet-4-6")
    assert accepts_images("openai", "gpt-4o-mini") and accepts_images("openai", "gpt-5.4-mini")
    assert not accepts_images("openai", "o3-mini") and not accepts_images("openai", "gpt-3.5-turbo")
    assert not accepts_images("openai", "qwen2.5:7b") and not accepts_images("offline", "x")
    assert no_images("auto", "anthropic", "claude-sonnet-4-6") is None
    assert no_images("on", "openai", "llava:13b") is None
    assert no_images("off", "anthropic", "claude-sonnet-4-6") == (
        "pictures are turned off (--sub-images off)"
    )
    assert no_images("on", "offline", "offline-sub") == "the offline baseline reads no pictures"


def test_a_prompt_without_pictures_keeps_its_cache_address() -> None:
    """Answers kept before pictures existed are still found; a picture changes the address."""
    sampling = {"max_tokens": 2048, "temperature": None}
    old = hashlib.sha256(
        json.dumps(["openai:m", sampling, "p", None], sort_keys=True).encode()
    ).hexdigest()
    assert answer_key("openai:m", sampling, "p", None) == old
    assert answer_key("openai:m", sampling, "p", None, ["ab"]) != old
    assert answer_key("openai:m", sampling, "p", None, ["ab"]) != answer_key(
        "openai:m", sampling, "p", None, ["cd"]
    )
