"""The OpenAI embeddings path: the real SDK through ``httpx2.MockTransport``, batched,
metered in the usage ledger, retried, and a failing endpoint leaving the lexical leg alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.retry import RetryPolicy
from ralph_tui.llm.usage import MeteredClient, UsageLedger, UsageSnapshot
from ralph_tui.retrieval.embedders import APIEmbedder
from ralph_tui.retrieval.retriever import Retriever
from ralph_tui.retrieval.sources import DocumentSource
from tests.llm.llm_wire import FakeAPI
from tests.retrieval.helpers import index_of, paragraphs_document


def embeddings_body(vectors: list[list[float]], tokens: int) -> dict[str, Any]:
    return {
        "object": "list",
        "model": "text-embedding-3-small",
        "data": [
            {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
        ],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def metered(api: FakeAPI, reports: list[UsageSnapshot] | None = None) -> MeteredClient:
    client = OpenAIClient(
        "gpt-4o-mini",
        api_key="sk-test",
        base_url="https://openai.test/v1",
        http_client=api.http_client(),
    )
    policy = RetryPolicy(max_retries=1, base_delay_s=0)

    async def no_sleep(_s: float) -> None:
        return None

    return MeteredClient(
        client, UsageLedger(), reports.append if reports is not None else None,
        retry_policy=policy, sleep=no_sleep,
    )  # fmt: skip


async def test_document_vectors_come_from_the_endpoint_and_are_metered() -> None:
    api = FakeAPI()
    api.reply(200, embeddings_body([[3.0, 4.0], [0.0, 2.0]], tokens=90))
    api.reply(200, embeddings_body([[0.0, 1.0]], tokens=4))
    reports: list[UsageSnapshot] = []
    client = metered(api, reports)
    embedder = APIEmbedder(client)
    index = await index_of(
        paragraphs_document(["Red apples.", "Blue whales swim."]), embedder=embedder
    )
    assert index.vectors is not None and index.figures.embedder == "openai-text-embedding-3-small"
    assert np.allclose(index.vectors, [[0.6, 0.8], [0.0, 1.0]])
    assert api.bodies[0]["model"] == "text-embedding-3-small"
    assert api.bodies[0]["input"][1].startswith("Blue whales swim.")

    result = await Retriever([DocumentSource(index)], embedder).search("ocean mammals")
    assert result.passages[0].info.chunk == 1, "only the dense leg can find it"
    assert result.diagnostics["candidates"]["lexical"] == {"doc": 0}
    assert api.bodies[1]["input"] == ["ocean mammals"]
    snapshot = client.ledger.snapshot()
    assert snapshot.calls == 2 and snapshot.input_tokens == 94
    assert snapshot.cost_usd == pytest.approx(94 * 0.02 / 1e6)
    assert "openai:text-embedding-3-small" in snapshot.by_model and reports


async def test_a_failing_endpoint_is_retried_then_the_lexical_leg_runs_alone() -> None:
    api = FakeAPI()
    for _ in range(2):
        api.reply(503, {"error": {"message": "embeddings are down", "type": "server_error"}})
    notices: list[str] = []
    client = metered(api)
    text = paragraphs_document(["Red apples.", "Blue whales swim."])
    index = await index_of(text, embedder=APIEmbedder(client), notices=notices)
    assert len(api.requests) == 2, "one retry"
    assert index.vectors is None
    assert "failed" in str(index.figures.dense_skipped)
    assert notices and "the lexical leg runs alone" in notices[-1]
    assert client.ledger.snapshot().failed_calls == 2

    result = await Retriever([DocumentSource(index)], APIEmbedder(client)).search("whales")
    assert result.passages[0].info.chunk == 1
    assert "lexical leg alone" in result.diagnostics["skipped"]["dense"]


async def test_a_server_without_an_embeddings_endpoint_says_so() -> None:
    api = FakeAPI()
    api.reply(404, {"error": {"message": "Not Found", "type": "invalid_request_error"}})
    notices: list[str] = []
    index = await index_of(
        paragraphs_document(["Red apples."]), embedder=APIEmbedder(metered(api)), notices=notices
    )
    assert index.vectors is None and len(api.requests) == 1, "a 404 is not retried"
    assert "the lexical leg runs alone" in notices[0]
