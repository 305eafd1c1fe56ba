"""``look(page)`` in a whole run over a PDF: the worker's sandbox code looks at a figure
page, the sub-model (the generate model, Anthropic) gets the page's picture; with
``--sub-images off`` the worker reads a one-line refusal and nothing is sent. Over an
image document (a scan read by OCR) the worker gets ``look`` too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.events import BaseEvent, SubQuery
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.documents.fixtures import write_pdf
from tests.documents.scans import pictures, text_pdf
from tests.llm.llm_wire import anthropic_message, streamed
from tests.loops.test_sdk_run import ALL_SUPPORTED, QUOTES, settings_for, worker_reply

LOOK = "print(look(2, 'What does the chart on page 2 show?'))"


class Network:
    """The worker's and the sub-model's turns (both at anthropic.test), the judge's at
    openai.test; every request recorded."""

    def __init__(self, sub_answers: int, code: str = LOOK) -> None:
        sub = anthropic_message([{"type": "text", "text": "Bars rising from 2021 to 2023."}])
        self.scripts: dict[str, list[dict[str, Any]]] = {
            "anthropic.test": [
                worker_reply({"code": code, "resultReady": False}),
                *[sub] * sub_answers,
                worker_reply({"answer": "- a\n- b\n- c", "evidence": QUOTES, "resultReady": True}),
            ],
            "openai.test": [ALL_SUPPORTED],
        }
        self.requests: dict[str, list[dict[str, Any]]] = {host: [] for host in self.scripts}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        self.requests[host].append(json.loads(request.content))
        return streamed(request, httpx2.Response(200, json=self.scripts[host].pop(0)))


@pytest.mark.parametrize("sub_images", ["auto", "off"])
async def test_worker_code_looks_at_a_pdf_page(tmp_path: Path, sub_images: str) -> None:
    document = write_pdf(tmp_path / "report.pdf", [QUOTES, []])
    network = Network(sub_answers=1 if sub_images == "auto" else 0)
    settings = settings_for(tmp_path, max_iters=1, sub_images=sub_images)
    events: list[BaseEvent] = []
    outcome = await execute_run(
        RunRequest(mode="qa", query="What does it show?", doc_path=document, settings=settings),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    assert outcome.status == "passed"
    requests = network.requests["anthropic.test"]
    assert "`look(page, question, document=None)" in json.dumps(requests[0]["system"])
    observation = json.dumps(requests[-1]["messages"][-1]["content"])
    subs = [e for e in events if isinstance(e, SubQuery)]
    if sub_images == "auto":
        image, _text = requests[1]["messages"][0]["content"]
        assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
        assert "Bars rising from 2021 to 2023." in observation
        assert len(subs) == 1 and subs[0].calls_used == 1
    else:
        assert len(requests) == 2, "no sub-call was sent"
        assert "[error] look: pictures are turned off (--sub-images off); read the text of " in (
            observation
        )
        assert subs == []


async def test_worker_code_looks_at_an_image_document(tmp_path: Path) -> None:
    """A run over a scan given as a PNG (read by OCR) gives the worker ``look`` too."""
    pictures(text_pdf([QUOTES]))[0].save(tmp_path / "sheet.png")
    network = Network(sub_answers=1, code="print(look(1, 'What is written on the sheet?'))")
    events: list[BaseEvent] = []
    await execute_run(
        RunRequest(
            mode="qa",
            query="What does it say?",
            doc_path=tmp_path / "sheet.png",
            settings=settings_for(tmp_path, max_iters=1),
        ),
        on_event=events.append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
    )
    requests = network.requests["anthropic.test"]
    assert "`look(page, question, document=None)" in json.dumps(requests[0]["system"])
    image, text = requests[1]["messages"][0]["content"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert "page 1 of sheet.png" in text["text"]
    assert "Bars rising from 2021 to 2023." in json.dumps(requests[2]["messages"][-1]["content"])
    assert [e.calls_used for e in events if isinstance(e, SubQuery)] == [1]
