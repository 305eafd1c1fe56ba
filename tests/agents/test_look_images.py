"""``look(page, question)`` over image documents (PNG, JPEG, TIFF, read by OCR): the image
itself sent to the sub-model through both SDKs' wire formats (from the real sandbox and as
an LCM tool), scaled down within the bounds of a rendered PDF page and encoded again (a
JPEG as a JPEG, the rest as PNG), a TIFF's frame as its page, turned upright as OCR read
it; counted and cached like ``llm_query``; answered from the OCR text offline."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from ralph_tui.agents.look import PageLook, look_function
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.documents import read_corpus
from ralph_tui.documents.corpus import Corpus, Document, assemble
from ralph_tui.documents.page_images import MAX_EDGE, MAX_PIXELS, DocumentPages
from ralph_tui.events import SubQuery
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from tests.agents.conftest import Recorder
from tests.agents.test_look import (
    Answer,
    anthropic_sub,
    look_as_a_tool,
    look_in_the_sandbox,
    openai_sub,
    pages_of,
    runner_for,
)
from tests.documents.scans import pictures, text_pdf
from tests.llm.llm_wire import FakeAPI, anthropic_message, openai_completion

LINES = ["Handwritten sheet: valve 12 shut.", "Gauge at the outlet read 4.2 bar."]
RED = (220, 20, 20)


def sheet() -> Image.Image:
    """A scanned sheet (text OCR reads) with a red stamp in its lower right corner: a
    picture shows it, the text does not."""
    picture = pictures(text_pdf([LINES]))[0].convert("RGB")
    width, height = picture.size
    ImageDraw.Draw(picture).rectangle((width - 90, height - 60, width - 20, height - 15), fill=RED)
    return picture


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The sheet as a PNG document, read by OCR."""
    folder = tmp_path_factory.mktemp("sheet")
    sheet().save(folder / "sheet.png")
    return read_corpus([folder / "sheet.png"])


def decoded(data: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data)))


def image_document(path: Path, picture: Image.Image, pages: int = 1, **save: Any) -> Document:
    """``picture`` saved at ``path`` as an image document (its text as if OCR read it):
    for the tests of what is sent, where what OCR reads is beside the point."""
    picture.save(path, **save)
    data = path.read_bytes()
    return Document(
        name=path.name,
        path=path,
        format="image",
        converter="OCR test",
        sha256=hashlib.sha256(data).hexdigest(),
        text="\n\n".join(["Sheet."] * pages),
        pages=["Sheet."] * pages,
        ocr_pages=list(range(1, pages + 1)),
    )


def red_in_corner(image: Image.Image) -> bool:
    """Whether the stamp is where ``sheet`` drew it (bottom right), at any scale."""
    rgb = image.convert("RGB")
    width, height = rgb.size
    red, green, blue = rgb.getpixel((int(width * 0.93), int(height * 0.91)))  # type: ignore[misc]
    return red > 180 and green < 80 and blue < 80


async def test_sandbox_code_looks_at_an_image_document_through_anthropic_image_blocks(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, scanned: Corpus
) -> None:
    sub_api = FakeAPI()
    sub_api.reply(200, anthropic_message([{"type": "text", "text": "A red stamp."}]))
    call = "look(1, 'Is the sheet stamped?')"
    result = await look_in_the_sandbox(api, claude, events, scanned, anthropic_sub(sub_api), call)
    assert result.output == Answer(answer="a box")
    assert "PDF or an image document" in api.bodies[0]["system"][0]["text"]
    assert "A red stamp." in json.dumps(api.bodies[1]["messages"][-1]["content"][-1])

    [request] = sub_api.bodies
    image, text = request["messages"][0]["content"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    sent = decoded(image["source"]["data"])
    assert sent.format == "PNG" and sent.size == sheet().size, "small enough to go as it is"
    assert red_in_corner(sent), "the image itself, in colour"
    assert "page 1 of sheet.png" in text["text"] and "Is the sheet stamped?" in text["text"]
    [sub] = events.of(SubQuery)
    assert sub.calls_used == 1 and sub.answer_preview == "A red stamp." and not sub.error


async def test_the_lcm_look_tool_sends_a_large_jpeg_scaled_down_as_an_openai_jpeg(
    api: FakeAPI, claude: AnthropicClient, events: Recorder, tmp_path: Path
) -> None:
    large = sheet().resize((3000, 2100))  # 6.3 million pixels: past what a picture may have
    document = image_document(tmp_path / "photo.jpg", large, quality=92)
    corpus = assemble([document])
    sub_api = FakeAPI()
    sub_api.reply(200, openai_completion({"content": "Red stamp, bottom right."}))
    arguments = {"page": 1, "question": "Where is the stamp?"}
    await look_as_a_tool(api, claude, events, corpus, openai_sub(sub_api), arguments)
    assert "Red stamp, bottom right." in json.dumps(api.bodies[1]["messages"][-1]["content"])
    [request] = sub_api.bodies
    image, text = request["messages"][0]["content"]
    prefix = "data:image/jpeg;base64,"
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith(prefix)
    sent = decoded(image["image_url"]["url"][len(prefix) :])
    assert sent.format == "JPEG"
    assert sent.width * sent.height <= MAX_PIXELS and max(sent.size) <= MAX_EDGE
    assert sent.width * sent.height > 0.95 * MAX_PIXELS, "scaled down no further than needed"
    assert abs(sent.width / sent.height - 3000 / 2100) < 0.01, "in proportion"
    assert red_in_corner(sent)
    assert "Question: Where is the stamp?" in text["text"]


async def test_a_tiffs_page_is_its_frame_and_an_image_turned_by_exif_is_sent_upright(
    events: Recorder, tmp_path: Path
) -> None:
    blank = Image.new("L", (400, 300), 255)
    dark = Image.new("L", (400, 300), 30)
    tiff = image_document(
        tmp_path / "sheets.tiff", blank, pages=2, save_all=True, append_images=[dark]
    )
    exif = Image.Exif()
    exif[0x0112] = 6  # (stored on its side: turned a quarter clockwise to be read)
    turned = image_document(tmp_path / "turned.png", sheet(), exif=exif)
    corpus = assemble([tiff, turned])
    sub_api = FakeAPI()
    for answer in ("dark", "upright"):
        sub_api.reply(200, openai_completion({"content": answer}))
    runner = runner_for(openai_sub(sub_api), events)
    look = look_function(runner, PageLook(pages_of(corpus), no_images=None))

    assert await look(2, "Is it dark?", "sheets.tiff") == "dark"
    assert await look(1, "Is it upright?", "turned.png") == "upright"
    refused = await look(3, "q", "sheets.tiff")
    assert refused == "[error] look: sheets.tiff has pages 1 to 2; page 3 is not one"
    frame, upright = (
        decoded(body["messages"][0]["content"][0]["image_url"]["url"].split(",", 1)[1])
        for body in sub_api.bodies
    )
    assert frame.format == "PNG" and frame.size == (400, 300)
    assert frame.convert("L").getpixel((200, 150)) < 60, "the second frame, not the first"
    width, height = sheet().size
    assert upright.size == (height, width), "turned as its EXIF says"


async def test_a_look_at_an_image_is_counted_and_the_same_one_again_comes_from_the_cache(
    events: Recorder, scanned: Corpus, tmp_path: Path
) -> None:
    sub_api = FakeAPI()
    sub_api.reply(200, openai_completion({"content": "A stamp."}, prompt_tokens=900))
    ledger = UsageLedger()
    cache = SubCallCache(tmp_path / "subcalls.sqlite", "session:s1", 1 << 20)
    runner = runner_for(MeteredClient(openai_sub(sub_api), ledger), events, cache)
    look = look_function(runner, PageLook(pages_of(scanned), no_images=None))
    assert await look(1, "Is it stamped?") == "A stamp."
    assert await look(1, "Is it stamped?") == "A stamp."
    assert len(sub_api.requests) == 1 and runner.budget.used == 1
    totals = ledger.snapshot()
    assert totals.calls == 1 and totals.input_tokens == 900 and totals.saved_calls == 1
    paid, hit = events.of(SubQuery)
    assert not paid.cached and hit.cached


async def test_the_offline_baseline_answers_about_an_image_from_its_ocr_text(
    events: Recorder, scanned: Corpus
) -> None:
    runner = runner_for(OfflineClient(role="sub"), events)
    look = look_function(runner, PageLook(pages_of(scanned), no_images="offline"))
    answer = await look(1, "Which valve is shut?")
    assert "valve 12 shut" in answer
    assert runner.budget.used == 1 and len(events.of(SubQuery)) == 1


async def test_an_image_changed_on_disk_or_damaged_is_refused_in_one_line(
    events: Recorder, tmp_path: Path
) -> None:
    swapped = image_document(tmp_path / "a.png", sheet())
    Image.new("RGB", (10, 10)).save(tmp_path / "a.png")
    torn = image_document(tmp_path / "b.png", sheet())
    torn_bytes = b"\x89PNG\r\n\x1a\n torn"
    (tmp_path / "b.png").write_bytes(torn_bytes)
    torn.sha256 = hashlib.sha256(torn_bytes).hexdigest()
    sub_api = FakeAPI()
    runner = runner_for(openai_sub(sub_api), events)
    pages = DocumentPages([swapped, torn], 1 << 26)
    look = look_function(runner, PageLook(pages, no_images=None))
    assert await look(1, "q", "a.png") == (
        "[error] look: a.png changed on disk since the run read it; not rendered"
    )
    refused = await look(1, "q", "b.png")
    assert refused.startswith("[error] look: page 1 of b.png cannot be rendered (")
    assert "\n" not in refused
    assert sub_api.requests == [] and runner.budget.used == 0
