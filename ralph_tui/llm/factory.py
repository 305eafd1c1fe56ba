"""Build a run's LLM clients from settings: one per role, metered into one ledger.

Roles: ``generate`` (worker, doc reader, reasoner, ...) defaults to Anthropic,
``validate`` (judges) to OpenAI, ``sub`` (``llm_query`` from sandbox code) to the generate
model unless ``sub_model`` is set. Any role's model may be written ``provider:model``.
``provider == "offline"`` puts every role on the keyless offline baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ralph_tui.config import Settings
from ralph_tui.llm.errors import LLMError
from ralph_tui.llm.keys import missing_key
from ralph_tui.llm.models import check_model
from ralph_tui.llm.pricing import Price, price_family, price_of
from ralph_tui.llm.retry import OnRetry, RetryPolicy
from ralph_tui.llm.roles import role_specs
from ralph_tui.llm.types import LLMClient
from ralph_tui.llm.usage import MeteredClient, OnUsage, UsageLedger

if TYPE_CHECKING:
    import httpx2

OnNotice = Callable[[str], None]
"""Receives one-line warnings meant for a person (model warnings, retries)."""

LOCAL_SERVER_KEY = "unused"
"""Key sent to a custom base URL when none is configured: local OpenAI-compatible
servers ignore it, but the SDKs refuse to start without one."""


@dataclass
class LLMClients:
    """The clients of one run by role, and the ledger they all record into."""

    generate: LLMClient
    validate: LLMClient
    sub: LLMClient
    ledger: UsageLedger
    embed: MeteredClient | None = None
    """The OpenAI(-compatible) embeddings client of the retrieval leg, when one is set up."""

    async def aclose(self) -> None:
        """Close the connections of every provider client (each once)."""
        inners = {
            id(c.inner): c.inner
            for c in (self.generate, self.validate, self.sub, self.embed)
            if isinstance(c, MeteredClient)
        }
        for inner in inners.values():
            close = getattr(inner, "aclose", None)
            if close is not None:
                await close()


def takes_temperature(settings: Settings) -> bool:
    """Whether the generate role's model is sent a sampling temperature: only OpenAI(-
    compatible) models outside the families that reject one. The Anthropic client leaves it
    out and the offline baseline is deterministic, so for them the setting changes nothing."""
    from ralph_tui.llm.openai_client import uses_max_completion_tokens

    provider, model = role_specs(settings)["generate"]
    return provider == "openai" and not uses_max_completion_tokens(model)


def build_clients(
    settings: Settings,
    *,
    http_client: httpx2.AsyncClient | None = None,
    on_notice: OnNotice | None = None,
    on_usage: OnUsage | None = None,
) -> LLMClients:
    """Clients for every role, sharing a ledger capped at ``settings.cost_cap_usd``.

    Raises ``AuthenticationError`` naming the env var to set when a needed key is
    missing. Model warnings (unknown, deprecated) and retries go to ``on_notice``.
    """
    notice = on_notice or _ignore
    ledger = UsageLedger(cost_cap_usd=settings.cost_cap_usd, token_cap=settings.token_cap)
    given = {model: Price(*rates) for model, rates in settings.price_table().items()}
    specs = role_specs(settings)
    built: dict[tuple[str, str], LLMClient] = {}
    for role, (provider, model) in specs.items():
        if (provider, model) not in built:
            built[provider, model] = _provider_client(
                provider, model, role, settings, http_client, notice
            )
            for warning in check_model(provider, model):
                notice(f"{provider}:{model}: {warning}")

    unpriced = [(p, m) for p, m in built if _unpriced(p, m, given)]
    ledger.unpriced_models = tuple(f"{p}:{m}" for p, m in unpriced)
    if unpriced and settings.cost_cap_usd is not None:
        notice(unpriced_cap_notice(settings, unpriced))

    def metered(role: str) -> MeteredClient:
        inner = built[specs[role]]
        return _metered(inner, settings, ledger, notice, on_usage, given)

    return LLMClients(
        generate=metered("generate"),
        validate=metered("validate"),
        sub=metered("sub"),
        ledger=ledger,
        embed=embeddings_client(
            settings, ledger, http_client=http_client, on_notice=notice, on_usage=on_usage
        ),
    )


def _metered(
    inner: LLMClient,
    settings: Settings,
    ledger: UsageLedger,
    notice: OnNotice,
    on_usage: OnUsage | None,
    given: dict[str, Price],
) -> MeteredClient:
    # A timed-out request keeps a local server generating: a retry would only queue
    # behind it, so a local endpoint's timeouts are reported, not retried.
    policy = RetryPolicy(
        max_retries=settings.llm_max_retries,
        retry_timeouts=not is_local_endpoint(base_url_of(settings, inner.provider)),
    )
    on_retry = _retry_notice(notice, inner, policy)
    price = given.get(price_family(inner.model))
    return MeteredClient(
        inner, ledger, on_usage, retry_policy=policy, on_retry=on_retry, price=price
    )


def wants_api_embeddings(settings: Settings) -> bool:
    """Whether retrieval embeds through the OpenAI embeddings API: asked for, or ``auto``
    with an OpenAI key or endpoint set (and the provider not offline)."""
    if settings.embedder == "openai":
        return True
    if settings.embedder != "auto" or settings.provider == "offline":
        return False
    key = settings.openai_api_key
    return bool(settings.openai_base_url or (key is not None and key.get_secret_value()))


def embeddings_client(
    settings: Settings,
    ledger: UsageLedger,
    *,
    http_client: httpx2.AsyncClient | None = None,
    on_notice: OnNotice | None = None,
    on_usage: OnUsage | None = None,
) -> MeteredClient | None:
    """The metered client of the embeddings endpoint (``settings.embed_model``), or
    ``None`` when retrieval does not embed through the API. ``AuthenticationError`` when
    ``--embedder openai`` is asked for without a key or endpoint."""
    if not wants_api_embeddings(settings):
        return None
    inner = _provider_client(
        "openai", settings.embed_model, "embed", settings, http_client, on_notice or _ignore
    )
    given = {model: Price(*rates) for model, rates in settings.price_table().items()}
    return _metered(inner, settings, ledger, on_notice or _ignore, on_usage, given)


def unpriced_cap_notice(settings: Settings, unpriced: list[tuple[str, str]]) -> str:
    """What a run says once at its start when its cost cap cannot see every call: the
    models without a price, and the two ways to cap them."""
    names = ", ".join(f"{provider}:{model}" for provider, model in unpriced)
    prices = " ".join(f"--price {model}=IN/OUT" for model in dict.fromkeys(m for _, m in unpriced))
    return (
        f"--cost-cap ${settings.cost_cap_usd:.2f} cannot be enforced for {names}: "
        f"{'its price is' if len(unpriced) == 1 else 'their prices are'} unknown, so the cap "
        f"sees only priced calls. Give {prices} (USD per million tokens), or cap tokens "
        "with --token-cap"
    )


def _unpriced(provider: str, model: str, given: dict[str, Price]) -> bool:
    """Whether this model's calls would cost an unknown amount (no list price, none given;
    the offline baseline costs nothing)."""
    if provider == "offline":
        return False
    return price_family(model) not in given and price_of(model) is None


def _provider_client(
    provider: str,
    model: str,
    role: str,
    settings: Settings,
    http_client: httpx2.AsyncClient | None,
    notice: OnNotice,
) -> LLMClient:
    """The client of one ``provider:model``; it streams unless ``--no-stream``, and says
    through ``notice`` when its server cannot."""
    if provider == "offline":
        from ralph_tui.llm.offline import OfflineClient

        return OfflineClient(role=role, context_window=settings.context_window)
    if provider == "anthropic":
        from ralph_tui.llm.anthropic_client import AnthropicClient

        return AnthropicClient(
            model,
            api_key=_api_key(settings, provider, model, role),
            base_url=base_url_of(settings, provider),
            timeout_s=call_timeout_s(settings, base_url_of(settings, provider)),
            http_client=http_client,
            context_window=settings.context_window,
            stream=settings.stream,
            on_notice=notice,
        )
    from ralph_tui.llm.openai_client import OpenAIClient

    return OpenAIClient(
        model,
        api_key=_api_key(settings, provider, model, role),
        base_url=base_url_of(settings, provider),
        timeout_s=call_timeout_s(settings, base_url_of(settings, provider)),
        http_client=http_client,
        embed_model=settings.embed_model,
        context_window=settings.context_window,
        stream=settings.stream,
        on_notice=notice,
    )


REMOTE_TIMEOUT_S = 120.0
LOCAL_TIMEOUT_S = 600.0
"""A server on this machine generates a few tokens a second on a CPU: a call may take
minutes, and one that timed out keeps the server busy, so it is given longer instead."""

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"})


def is_local_endpoint(base_url: str | None) -> bool:
    """Whether ``base_url`` names a server on this machine (llama.cpp, Ollama, vLLM...)."""
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    return host in LOCAL_HOSTS or host.endswith(".localhost")


def base_url_of(settings: Settings, provider: str) -> str | None:
    """The endpoint a provider's client talks to (``None``: the provider's own API)."""
    return settings.anthropic_base_url if provider == "anthropic" else settings.openai_base_url


def call_timeout_s(settings: Settings, base_url: str | None) -> float:
    """The per-call timeout: the setting, else longer for a local server."""
    if settings.llm_timeout_s is not None:
        return settings.llm_timeout_s
    return LOCAL_TIMEOUT_S if is_local_endpoint(base_url) else REMOTE_TIMEOUT_S


def _api_key(settings: Settings, provider: str, model: str, role: str) -> str:
    """The key for ``provider``; ``AuthenticationError`` naming ``model`` and the fix that
    fits ``role`` when there is none."""
    key = settings.anthropic_api_key if provider == "anthropic" else settings.openai_api_key
    base_url = base_url_of(settings, provider)
    if key is not None and key.get_secret_value():
        return key.get_secret_value()
    if base_url:
        return LOCAL_SERVER_KEY
    raise missing_key(provider, model, role)


def _retry_notice(notice: OnNotice, client: LLMClient, policy: RetryPolicy) -> OnRetry:
    def report(attempt: int, delay_s: float, error: LLMError) -> None:
        notice(
            f"{client.provider}:{client.model}: {error.message}; retry {attempt} of "
            f"{policy.max_retries} in {delay_s:.1f} s"
        )

    return report


def _ignore(_message: str) -> None:
    """The default ``on_notice``: nobody is listening."""
