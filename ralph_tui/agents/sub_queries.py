"""``llm_query`` / ``llm_query_batched``: the host side of the sandbox's sub-model calls.

With a sub-call cache, an answer already paid for is taken from it: the call costs nothing,
uses none of the budget, and is reported as cached (and counted in the ledger as saved)."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ralph_tui.agents.sub_cache import SubCallCache, answer_key
from ralph_tui.errors import CostCapReached
from ralph_tui.events import Emit, SubQuery
from ralph_tui.llm.errors import LLMError
from ralph_tui.llm.tokens import estimate_tokens, images_tokens
from ralph_tui.llm.types import ChatMessage, Completion, ImagePart, LLMClient
from ralph_tui.llm.usage import MeteredClient

PREVIEW_CHARS = 240


def preview(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


@dataclass
class SubQueryBudget:
    """The sub-call budget of one agent run, and the warnings it owes the model."""

    limit: int
    used: int = 0
    warned: bool = False
    cost_cap_hit: CostCapReached | None = None
    pending_notes: list[str] = field(default_factory=list)

    def take(self) -> bool:
        """Use one call if any is left; note the 80 % warning once."""
        if self.used >= self.limit:
            return False
        self.used += 1
        if not self.warned and self.used >= 0.8 * self.limit:
            self.warned = True
            self.pending_notes.append(
                f"Warning: {self.used} of {self.limit} llm_query calls used. "
                "Plan to finish with the calls you have left."
            )
        return True

    def drain_notes(self) -> list[str]:
        notes, self.pending_notes = self.pending_notes, []
        return notes


@dataclass
class Spent:
    """Calls, tokens and known cost of a runner's answered sub-calls."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unknown_cost_calls: int = 0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.input_tokens += completion.usage.input_tokens
        self.output_tokens += completion.usage.output_tokens
        if completion.cost_usd is None:
            self.unknown_cost_calls += 1
        else:
            self.cost_usd += completion.cost_usd

    def since(self, earlier: Spent) -> Spent:
        return Spent(
            self.calls - earlier.calls,
            self.input_tokens - earlier.input_tokens,
            self.output_tokens - earlier.output_tokens,
            self.cost_usd - earlier.cost_usd,
            self.unknown_cost_calls - earlier.unknown_cost_calls,
        )

    def copy(self) -> Spent:
        return replace(self)


@dataclass(frozen=True)
class SubAnswer:
    """A sub-call's answer (``[error] ...`` when it failed), where the cache keeps it
    (``None``: it does not), and whether it came from there."""

    text: str
    key: str | None = None
    cached: bool = False


class SubQueryRunner:
    """Runs sub-model calls for sandbox code under a budget and a concurrency limit, taking
    the answers already paid for from ``cache`` when there is one."""

    def __init__(
        self,
        client: LLMClient,
        budget: SubQueryBudget,
        emit: Emit,
        *,
        agent: str,
        concurrency: int = 8,
        max_tokens: int = 2048,
        cache: SubCallCache | None = None,
    ) -> None:
        self.client = client
        self.budget = budget
        self.emit = emit
        self.agent = agent
        self.max_tokens = max_tokens
        self.cache = cache
        self.semaphore = asyncio.Semaphore(concurrency)
        self.spent = Spent()
        """What the sub-calls have used so far (operators report their share of it)."""
        self.saved = Spent()
        """What the answers taken from the cache cost when they were first paid for."""
        self._asking: dict[str, asyncio.Lock] = {}
        """One lock per answer being asked, so the same question asked twice at once is
        paid for once (the second asker finds the first one's answer in the cache)."""

    def speaking_for(self, agent: str) -> SubQueryRunner:
        """This runner (the same budget, cache, concurrency and spending), its sub-calls
        reported as ``agent``'s."""
        view = copy.copy(self)
        view.agent = agent
        return view

    @property
    def sampling(self) -> dict[str, Any]:
        """The sampling settings of every sub-call (part of an answer's address)."""
        return {"max_tokens": self.max_tokens, "temperature": None}

    def _refusal(self, prompt: str, images: Sequence[ImagePart] = ()) -> str | None:
        if self.budget.cost_cap_hit is not None:
            return "[error] The run's cost cap was reached. Finish now with what you have."
        if not self.budget.take():
            return (
                f"[error] The llm_query budget ({self.budget.limit} calls) is exhausted. "
                "Do not call llm_query again; finish with what you have and set resultReady."
            )
        tokens = estimate_tokens(prompt) + images_tokens(list(images))
        window = self.client.context_window_tokens
        if tokens + self.max_tokens > window:
            return (
                f"[error] Sub-prompt refused: about {tokens:,} tokens ({len(prompt):,} characters"
                f"{' and a picture' if images else ''}) plus {self.max_tokens:,} for the answer "
                f"exceeds the sub-model's window of {window:,} tokens. Pass a smaller slice."
            )
        return None

    async def query(self, prompt: str, context_slice: str | None = None) -> str:
        """One sub-call. Failures come back as ``[error] ...`` strings, never as exceptions."""
        return (await self.ask(prompt, context_slice)).text

    async def ask(
        self,
        prompt: str,
        context_slice: str | None = None,
        schema: dict[str, Any] | None = None,
        images: Sequence[ImagePart] = (),
    ) -> SubAnswer:
        """One sub-call whose answer must match ``schema`` (when given), with ``images``
        sent before the prompt (``look``): from the cache when it holds the answer, else
        paid for (and then kept there)."""
        full = prompt if context_slice is None else f"{prompt}\n\n---\n{context_slice}"
        if self.cache is None:
            return SubAnswer(await self._paid(full, None, images))
        model = f"{self.client.provider}:{self.client.model}"
        hashes = [image.sha256 for image in images]
        key = answer_key(model, self.sampling, full, schema, hashes)
        async with self._asking.setdefault(key, asyncio.Lock()):
            started = time.perf_counter()
            kept = await self.cache.get(key)
            if kept is not None:
                self._saved(full, kept, started)
                return SubAnswer(kept.text, key, cached=True)
            return SubAnswer(await self._paid(full, key, images), key)

    async def forget(self, answer: SubAnswer) -> None:
        """Drop ``answer`` from the cache: its asker could not use it, so the next asker
        pays for a new one."""
        if self.cache is not None and answer.key is not None:
            await self.cache.forget(answer.key)

    def _saved(self, prompt: str, kept: Completion, started: float) -> None:
        self.saved.add(kept)
        if isinstance(self.client, MeteredClient):
            self.client.record_saved(kept)
        self._report(
            prompt,
            kept.text,
            (time.perf_counter() - started) * 1000,
            input_tokens=kept.usage.input_tokens,
            output_tokens=kept.usage.output_tokens,
            cached=True,
        )

    async def _paid(
        self, full: str, key: str | None = None, images: Sequence[ImagePart] = ()
    ) -> str:
        """Ask the sub-model (under the budget and the concurrency limit); the answer is
        kept under ``key`` when one is given."""
        refusal = self._refusal(full, images)
        if refusal is not None:
            self._report(full, refusal, 0.0, error=refusal)
            return refusal
        started = time.perf_counter()
        async with self.semaphore:
            try:
                completion = await self.client.chat(
                    [ChatMessage(role="user", content=full, images=list(images))],
                    max_tokens=self.max_tokens,
                )
            except CostCapReached as exc:
                self.budget.cost_cap_hit = exc
                return self._failed(full, started, exc)
            except LLMError as exc:
                return self._failed(full, started, exc)
        latency = (time.perf_counter() - started) * 1000
        if key is not None and self.cache is not None:
            await self.cache.put(key, completion)
        self.spent.add(completion)
        self._report(
            full,
            completion.text,
            latency,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
        )
        return completion.text

    async def query_batched(self, prompts: list[object]) -> list[str]:
        """Many sub-calls at once; one failing item does not sink the others."""
        if not isinstance(prompts, list):
            return ["[error] llm_query_batched takes a list of prompts"]
        return list(await asyncio.gather(*(self._query_item(item) for item in prompts)))

    async def _query_item(self, item: object) -> str:
        if isinstance(item, str):
            return await self.query(item)
        if (
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(part, str) for part in item)
        ):
            return await self.query(item[0], item[1])
        return "[error] each item must be a prompt string or a [prompt, context_slice] pair"

    def _failed(self, prompt: str, started: float, exc: LLMError | CostCapReached) -> str:
        message = f"[error] {type(exc).__name__}: {exc.message}"
        self._report(prompt, message, (time.perf_counter() - started) * 1000, error=message)
        return message

    def _report(
        self,
        prompt: str,
        answer: str,
        latency_ms: float,
        *,
        error: str | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cached: bool = False,
    ) -> None:
        self.emit(
            SubQuery(
                agent=self.agent,
                prompt_preview=preview(prompt),
                answer_preview=preview(answer),
                latency_ms=latency_ms,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                error=error,
                calls_used=self.budget.used,
                calls_budget=self.budget.limit,
                cached=cached,
            )
        )
