"""A run's token and cost ledger, and the client wrapper that fills it.

``UsageLedger`` adds up every completion of a run. A call whose model has no known price
adds its tokens but not a cost; such calls are counted, so a total is shown as "known
part + unknown" rather than silently low. With a cost cap, ``check()`` raises
``CostCapReached`` once the known cost reaches it. ``MeteredClient`` wraps any
``LLMClient``: cap check before each call, bounded retries, recording after.

Every request is a call in the ledger, whatever its usage said: a call whose server reported
no usage (or 0 input tokens for a prompt that was not empty) is counted with tokens estimated
by a tokenizer (``ralph_tui.llm.tokens``), priced as any other, and counted among the
``estimated_calls``, so the totals say which part of them is an estimate.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

from ralph_tui.errors import CostCapReached
from ralph_tui.events import UsageUpdated
from ralph_tui.llm.errors import (
    LLMConnectionError,
    LLMError,
    LLMTimeoutError,
    StreamInterruptedError,
)
from ralph_tui.llm.pricing import Price, turn_cost
from ralph_tui.llm.retry import OnRetry, RetryPolicy, Sleep, call_with_retries
from ralph_tui.llm.tokens import count_tokens, prompt_tokens, with_estimates
from ralph_tui.llm.types import (
    ChatMessage,
    Completion,
    Embedded,
    LLMClient,
    OnPartial,
    ToolChoice,
    ToolDefinition,
    Usage,
)


@dataclass(frozen=True)
class ModelUsage:
    """Totals of one ``provider:model``."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cost_usd: float = 0.0
    unknown_cost_calls: int = 0
    priced_calls: int = 0
    """Calls counted at a known price: answered ones, and those abandoned after the server
    had them whole (a refused request says nothing about a price)."""
    failed_calls: int = 0
    estimated_calls: int = 0
    """Calls whose server reported no usage: their tokens are a tokenizer's estimate."""
    cache_read_tokens: int = 0
    """Input tokens read from the prompt cache, over the calls that said."""
    cache_reported_calls: int = 0
    """Calls whose provider reported prompt-cache usage (the others' is unknown)."""
    saved_calls: int = 0
    """Calls answered from the sub-call cache: not sent, not paid (not in ``calls``)."""
    saved_input_tokens: int = 0
    """The input tokens the saved calls took when they were first paid for."""
    saved_output_tokens: int = 0
    saved_cost_usd: float = 0.0
    """What the saved calls of known price cost when first paid for."""
    saved_unknown_cost_calls: int = 0


SAVED_FIELDS = (
    "saved_calls",
    "saved_input_tokens",
    "saved_output_tokens",
    "saved_cost_usd",
    "saved_unknown_cost_calls",
)
"""The ``ModelUsage`` fields that count the sub-call cache's savings, summed alike."""


@dataclass(frozen=True)
class UsageSnapshot:
    """The ledger's totals at one moment. ``cost_usd`` sums the calls of known price."""

    input_tokens: int
    output_tokens: int
    calls: int
    cost_usd: float
    unknown_cost_calls: int
    cost_cap_usd: float | None
    by_model: dict[str, ModelUsage] = field(default_factory=dict)
    token_cap: int | None = None
    priced_calls: int = 0
    """Calls counted at a known price (``ModelUsage.priced_calls``)."""
    failed_calls: int = 0
    """Requests the server received that failed (counted in ``calls`` too): ``calls`` is every
    request sent, as a server's access log counts them."""
    estimated_calls: int = 0
    """Calls whose tokens are a tokenizer's estimate (their server reported no usage)."""
    cache_read_tokens: int = 0
    cache_reported_calls: int = 0
    saved_calls: int = 0
    """Calls answered from the sub-call cache instead of sent (not in ``calls``)."""
    saved_input_tokens: int = 0
    saved_output_tokens: int = 0
    saved_cost_usd: float = 0.0
    saved_unknown_cost_calls: int = 0
    unpriced_models: tuple[str, ...] = ()
    """The run's models without a known price (``provider:model``): before any call is
    answered, the cost to come is unknown, not $0."""

    @property
    def cost_fully_known(self) -> bool:
        return self.unknown_cost_calls == 0

    def since(self, earlier: UsageSnapshot) -> UsageSnapshot:
        """What was spent between ``earlier`` and this snapshot of the same ledger: the
        usage of one part of a run (a sub-task), model by model."""
        spent = {
            key: _minus(usage, earlier.by_model.get(key, ModelUsage()))
            for key, usage in self.by_model.items()
        }
        return totals_of(
            {key: usage for key, usage in spent.items() if usage.calls},
            self.cost_cap_usd,
            self.token_cap,
        )

    @classmethod
    def of_event(cls, event: UsageUpdated) -> UsageSnapshot:
        """The snapshot a ``UsageUpdated`` event reports (the inverse of ``to_event``, less
        the per-model figures an event does not carry)."""
        return cls(
            input_tokens=event.input_tokens,
            output_tokens=event.output_tokens,
            calls=event.calls,
            cost_usd=event.cost_usd or 0.0,
            unknown_cost_calls=event.unknown_cost_calls,
            priced_calls=0
            if event.cost_usd is None
            else max(event.calls - event.unknown_cost_calls, 0),
            cost_cap_usd=event.cost_cap_usd,
            failed_calls=event.failed_calls,
            estimated_calls=event.estimated_calls,
            cache_read_tokens=event.cache_read_tokens or 0,
            cache_reported_calls=0 if event.cache_read_tokens is None else event.calls,
            saved_calls=event.saved_calls,
            saved_input_tokens=event.saved_input_tokens,
            saved_output_tokens=event.saved_output_tokens,
            saved_cost_usd=event.saved_cost_usd or 0.0,
            saved_unknown_cost_calls=event.saved_calls if event.saved_cost_usd is None else 0,
        )

    def to_event(self) -> UsageUpdated:
        """The ``UsageUpdated`` event a loop emits for this snapshot.

        Its ``cost_usd`` is ``None`` when no call had a known price and one had none (a
        refused request costs nothing and says nothing about prices; one abandoned after the
        server had it is priced like an answered one), or when none was counted yet and a
        model of the run has no price (a slow first call of an unpriced model is not $0).
        """
        all_unknown = self.priced_calls == 0 and (
            self.unknown_cost_calls > 0 or bool(self.unpriced_models)
        )
        saved_unknown = 0 < self.saved_calls == self.saved_unknown_cost_calls
        return UsageUpdated(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            calls=self.calls,
            cost_usd=None if all_unknown else self.cost_usd,
            cost_cap_usd=self.cost_cap_usd,
            unknown_cost_calls=self.unknown_cost_calls,
            failed_calls=self.failed_calls,
            estimated_calls=self.estimated_calls,
            cache_read_tokens=self.cache_read_tokens if self.cache_reported_calls else None,
            saved_calls=self.saved_calls,
            saved_input_tokens=self.saved_input_tokens,
            saved_output_tokens=self.saved_output_tokens,
            saved_cost_usd=None if saved_unknown else self.saved_cost_usd,
        )


def _minus(later: ModelUsage, earlier: ModelUsage) -> ModelUsage:
    names = [f.name for f in fields(ModelUsage)]
    return ModelUsage(**{name: getattr(later, name) - getattr(earlier, name) for name in names})


def totals_of(
    by_model: dict[str, ModelUsage], cost_cap_usd: float | None, token_cap: int | None
) -> UsageSnapshot:
    """The snapshot of the usage ``by_model`` holds."""
    parts = by_model.values()
    return UsageSnapshot(
        input_tokens=sum(p.input_tokens for p in parts),
        output_tokens=sum(p.output_tokens for p in parts),
        calls=sum(p.calls for p in parts),
        cost_usd=sum(p.cost_usd for p in parts),
        unknown_cost_calls=sum(p.unknown_cost_calls for p in parts),
        priced_calls=sum(p.priced_calls for p in parts),
        cost_cap_usd=cost_cap_usd,
        by_model=by_model,
        token_cap=token_cap,
        failed_calls=sum(p.failed_calls for p in parts),
        estimated_calls=sum(p.estimated_calls for p in parts),
        cache_read_tokens=sum(p.cache_read_tokens for p in parts),
        cache_reported_calls=sum(p.cache_reported_calls for p in parts),
        **{name: sum(getattr(p, name) for p in parts) for name in SAVED_FIELDS},
    )


def _plus(old: ModelUsage, completion: Completion) -> ModelUsage:
    """``old`` with one more call: ``completion``'s tokens and cost."""
    usage = completion.usage
    return replace(
        old,
        input_tokens=old.input_tokens + usage.input_tokens,
        output_tokens=old.output_tokens + usage.output_tokens,
        calls=old.calls + 1,
        cost_usd=old.cost_usd + (completion.cost_usd or 0.0),
        unknown_cost_calls=old.unknown_cost_calls + (completion.cost_usd is None),
        priced_calls=old.priced_calls + (completion.cost_usd is not None),
        estimated_calls=old.estimated_calls + usage.estimated,
        cache_read_tokens=old.cache_read_tokens + (usage.cache_read_tokens or 0),
        cache_reported_calls=old.cache_reported_calls + (usage.cache_read_tokens is not None),
    )


ABANDONED = (LLMTimeoutError, StreamInterruptedError)
"""Failures of a request the server had whole and may have read (its answer never came):
counted with their prompt's tokens, unlike a refusal."""


class UsageLedger:
    """Token and cost totals of one run, shared by all its clients.

    Safe to share between asyncio tasks and the sandbox host's threads: every update
    holds a lock and none awaits.
    """

    def __init__(self, cost_cap_usd: float | None = None, token_cap: int | None = None) -> None:
        self.cost_cap_usd = cost_cap_usd
        self.token_cap = token_cap
        self.unpriced_models: tuple[str, ...] = ()
        """The run's models without a known price (set by whoever builds its clients)."""
        self._lock = threading.Lock()
        self._by_model: dict[str, ModelUsage] = {}

    def carry(self, earlier: ModelUsage) -> None:
        """Start from what earlier legs of the session used (``--resume``): totals and caps
        are the session's, not this leg's."""
        if earlier.calls or earlier.input_tokens or earlier.output_tokens or earlier.saved_calls:
            with self._lock:
                self._by_model[EARLIER_LEGS] = earlier

    def record(self, completion: Completion) -> UsageSnapshot:
        """Add one completion's tokens and cost; return the new totals."""
        key = f"{completion.provider}:{completion.model}"
        with self._lock:
            self._by_model[key] = _plus(self._by_model.get(key, ModelUsage()), completion)
            return self._snapshot()

    def record_saved(self, completion: Completion) -> UsageSnapshot:
        """Count a call answered from the sub-call cache: nothing was sent or paid, and
        ``completion`` (what the answer cost when first paid for) is what it saved."""
        key = f"{completion.provider}:{completion.model}"
        known = completion.cost_usd is not None
        with self._lock:
            old = self._by_model.get(key, ModelUsage())
            self._by_model[key] = replace(
                old,
                saved_calls=old.saved_calls + 1,
                saved_input_tokens=old.saved_input_tokens + completion.usage.input_tokens,
                saved_output_tokens=old.saved_output_tokens + completion.usage.output_tokens,
                saved_cost_usd=old.saved_cost_usd + (completion.cost_usd or 0.0),
                saved_unknown_cost_calls=old.saved_unknown_cost_calls + (0 if known else 1),
            )
            return self._snapshot()

    def record_failure(
        self, provider: str, model: str, read: Completion | None = None
    ) -> UsageSnapshot:
        """Count a request the server received but that failed: without tokens (refused),
        or with what it ``read`` (the prompt of a request whose answer never came)."""
        key = f"{provider}:{model}"
        with self._lock:
            old = self._by_model.get(key, ModelUsage())
            counted = _plus(old, read) if read is not None else replace(old, calls=old.calls + 1)
            self._by_model[key] = replace(counted, failed_calls=old.failed_calls + 1)
            return self._snapshot()

    def snapshot(self) -> UsageSnapshot:
        with self._lock:
            return self._snapshot()

    def _snapshot(self) -> UsageSnapshot:
        totals = totals_of(dict(self._by_model), self.cost_cap_usd, self.token_cap)
        return replace(totals, unpriced_models=self.unpriced_models)

    def check(self) -> None:
        """Raise ``CostCapReached`` if the known cost or the tokens have reached a cap."""
        totals = self.snapshot()
        if self.cost_cap_usd is not None and totals.cost_usd >= self.cost_cap_usd:
            raise CostCapReached(
                f"cost cap reached: ${totals.cost_usd:.4f} spent of the "
                f"${self.cost_cap_usd:.2f} cap"
            )
        tokens = totals.input_tokens + totals.output_tokens
        if self.token_cap is not None and tokens >= self.token_cap:
            raise CostCapReached(
                f"token cap reached: {tokens:,} tokens used of the {self.token_cap:,} cap"
            )


OnUsage = Callable[[UsageSnapshot], None]

EARLIER_LEGS = "(earlier legs)"
"""The ledger entry holding what a resumed session used before this leg."""


class MeteredClient:
    """An ``LLMClient`` that checks the cost cap, retries, and records usage around ``inner``."""

    def __init__(
        self,
        inner: LLMClient,
        ledger: UsageLedger,
        on_usage: OnUsage | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
        on_retry: OnRetry | None = None,
        sleep: Sleep = asyncio.sleep,
        price: Price | None = None,
    ) -> None:
        self.inner = inner
        self.price = price
        """A price the user gave for this model (``--price``); it wins over the list."""
        self.ledger = ledger
        self.on_usage = on_usage
        self.retry_policy = retry_policy or RetryPolicy()
        self.on_retry = on_retry
        self.sleep = sleep
        self.provider = inner.provider
        self.model = inner.model
        self.context_window_tokens = inner.context_window_tokens

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
        on_partial: OnPartial | None = None,
    ) -> Completion:
        self.ledger.check()

        async def attempt() -> Completion:
            try:
                return await self.inner.chat(
                    messages,
                    tools=tools,
                    tool_choice=tool_choice,
                    temperature=temperature,
                    max_tokens=max_tokens,
                    on_partial=on_partial,
                )
            except ABANDONED:
                self._count_abandoned(messages, tools)
                raise
            except LLMError as error:
                if not isinstance(error, LLMConnectionError):  # one that never left is not sent
                    self._count_failure()
                raise
            except asyncio.CancelledError:
                # Cancelled while the server had it (a run cancelled mid-turn, a sibling
                # sub-call's failure): the server's log has it, so the ledger counts it too.
                self._count_abandoned(messages, tools)
                raise

        completion = await call_with_retries(
            attempt,
            policy=self.retry_policy,
            sleep=self.sleep,
            on_retry=self.on_retry,
        )
        completion = self._with_estimates(completion, messages, tools)
        if self.price is not None:
            cost = self._cost(completion.usage, completion.model)
            completion = completion.model_copy(update={"cost_usd": cost})
        self._report(self.ledger.record(completion))
        return completion

    def _with_estimates(
        self,
        completion: Completion,
        messages: list[ChatMessage],
        tools: list[ToolDefinition] | None,
    ) -> Completion:
        """``completion`` with the tokens its server did not report estimated (see
        ``tokens.with_estimates``) and priced again by them: never counted as free."""
        usage = with_estimates(completion, messages, tools)
        if usage is completion.usage:
            return completion
        cost = turn_cost(self.model, completion.model, usage)
        return completion.model_copy(
            update={"usage": usage, "cost_usd": completion.cost_usd if cost is None else cost}
        )

    @property
    def embed_model(self) -> str:
        return str(getattr(self.inner, "embed_model", ""))

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Embedding vectors from ``inner`` (an ``OpenAIClient``): cap checked, retried and
        recorded in the ledger like a chat call, under the embedding model's name."""
        embed = getattr(self.inner, "embed", None)
        if embed is None:
            raise TypeError(f"{self.provider}:{self.model} has no embeddings endpoint")
        self.ledger.check()

        async def attempt() -> Embedded:
            try:
                embedded: Embedded = await embed(texts)
            except LLMError as error:
                if not isinstance(error, LLMConnectionError):
                    self._report(self.ledger.record_failure(self.provider, self.embed_model))
                raise
            return embedded

        embedded = await call_with_retries(
            attempt, policy=self.retry_policy, sleep=self.sleep, on_retry=self.on_retry
        )
        record = embedded.record
        if record.usage.input_tokens <= 0 and any(texts):
            # An endpoint that reports no usage: counted, not free.
            usage = record.usage.model_copy(
                update={"input_tokens": count_tokens("\n".join(texts)), "estimated": True}
            )
            cost = turn_cost(self.embed_model, record.model, usage)
            record = record.model_copy(
                update={"usage": usage, "cost_usd": record.cost_usd if cost is None else cost}
            )
        self._report(self.ledger.record(record))
        return embedded.vectors

    def record_saved(self, completion: Completion) -> None:
        """Count ``completion`` as a call the sub-call cache answered (see
        ``UsageLedger.record_saved``) and report the new totals."""
        self._report(self.ledger.record_saved(completion))

    def _count_failure(self) -> None:
        self._report(self.ledger.record_failure(self.provider, self.model))

    def _count_abandoned(
        self, messages: list[ChatMessage], tools: list[ToolDefinition] | None
    ) -> None:
        """Count a request whose answer never came although the server had it whole (timed
        out, cut off, cancelled): a failed call whose prompt's tokens are counted, estimated,
        and priced — the server read them, and a provider bills what it read, so a cap must
        see them (a request the server refused is counted without tokens)."""
        usage = Usage(input_tokens=prompt_tokens(messages, tools), estimated=True)
        cost = self._cost(usage, self.model)
        read = Completion(provider=self.provider, model=self.model, usage=usage, cost_usd=cost)
        self._report(self.ledger.record_failure(self.provider, self.model, read))

    def _cost(self, usage: Usage, answered_model: str) -> float | None:
        """What ``usage`` costs: at the price the user gave for this model (``--price``),
        else at the list price of the model asked for or of the one that answered."""
        if self.price is None:
            return turn_cost(self.model, answered_model, usage)
        return self.price.cost(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens or 0,
            usage.cache_write_tokens or 0,
        )

    def _report(self, snapshot: UsageSnapshot) -> None:
        if self.on_usage is not None:
            self.on_usage(snapshot)
