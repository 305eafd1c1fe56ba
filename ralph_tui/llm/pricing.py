"""Price table: US dollars per million tokens, for the models whose list prices we know.

A model missing here has an unknown cost (``None``): it is reported as unknown, never
guessed. Dated snapshots (``claude-haiku-4-5-20251001``, ``gpt-4o-mini-2024-07-18``) are
priced as their family. Prices are standard-tier list prices. Prompt-cache reads and writes
are priced at the provider's cache rates: Anthropic reads at a tenth of the input price and
writes (five-minute cache) at 1.25 times it; OpenAI's cached input at the rate its price
list gives the model. A model whose cache rate we do not know has its cached tokens priced
as ordinary input (an upper bound, so a cost cap is never passed unseen).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ralph_tui.llm.types import Usage


class Price(NamedTuple):
    """USD per million input tokens and per million output tokens; per million input tokens
    read from and written to the prompt cache, where known."""

    input_per_mtok: float
    output_per_mtok: float
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float:
        """US dollars for a call of these sizes (``input_tokens`` counts cached ones too)."""
        read_rate = (
            self.input_per_mtok if self.cache_read_per_mtok is None else self.cache_read_per_mtok
        )
        write_rate = (
            self.input_per_mtok if self.cache_write_per_mtok is None else self.cache_write_per_mtok
        )
        plain = max(0, input_tokens - cache_read - cache_write)
        return (
            plain * self.input_per_mtok
            + cache_read * read_rate
            + cache_write * write_rate
            + output_tokens * self.output_per_mtok
        ) / 1e6


def anthropic(input_per_mtok: float, output_per_mtok: float) -> Price:
    """An Anthropic price: cache reads at 0.1x and (five-minute) writes at 1.25x input."""
    return Price(input_per_mtok, output_per_mtok, input_per_mtok * 0.1, input_per_mtok * 1.25)


PRICES: dict[str, Price] = {
    # Anthropic
    "claude-opus-4-6": anthropic(5.0, 25.0),
    "claude-opus-4-5": anthropic(5.0, 25.0),
    "claude-opus-4-1": anthropic(15.0, 75.0),
    "claude-opus-4": anthropic(15.0, 75.0),
    "claude-opus-4-0": anthropic(15.0, 75.0),
    "claude-sonnet-4-6": anthropic(3.0, 15.0),
    "claude-sonnet-4-5": anthropic(3.0, 15.0),
    "claude-sonnet-4": anthropic(3.0, 15.0),
    "claude-sonnet-4-0": anthropic(3.0, 15.0),
    "claude-3-7-sonnet": anthropic(3.0, 15.0),
    "claude-haiku-4-5": anthropic(1.0, 5.0),
    "claude-3-5-haiku": anthropic(0.80, 4.0),
    # OpenAI chat
    "gpt-5.4-mini": Price(0.75, 4.50),
    "gpt-5.4-nano": Price(0.20, 1.25),
    "gpt-5.1": Price(1.25, 10.0, 0.125),
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.0, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "o3-mini": Price(1.10, 4.40, 0.55),
    # OpenAI embeddings (input only)
    "text-embedding-3-small": Price(0.02, 0.0),
    "text-embedding-3-large": Price(0.13, 0.0),
    "text-embedding-ada-002": Price(0.10, 0.0),
}

_SNAPSHOT_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$")


def price_family(model: str) -> str:
    """The price-table key of ``model``: its name without a date or ``-latest`` suffix."""
    return _SNAPSHOT_SUFFIX.sub("", model.strip().lower())


def price_of(model: str) -> Price | None:
    """The list price of ``model``, or ``None`` when we do not know it."""
    return PRICES.get(price_family(model))


def cost_usd(
    model: str, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
) -> float | None:
    """What a call cost in US dollars, or ``None`` when the model's price is unknown."""
    price = price_of(model)
    if price is None:
        return None
    return price.cost(input_tokens, output_tokens, cache_read, cache_write)


def usage_cost(model: str, usage: Usage) -> float | None:
    """What a call of ``usage`` cost with ``model``'s price (cached tokens at cache rates)."""
    return cost_usd(
        model,
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens or 0,
        usage.cache_write_tokens or 0,
    )


def turn_cost(requested_model: str, answered_model: str, usage: Usage) -> float | None:
    """What a turn cost: priced by the model asked for, else by the one that answered (a
    dated snapshot of it); ``None`` when neither has a known price."""
    cost = usage_cost(requested_model, usage)
    if cost is None and answered_model:
        cost = usage_cost(answered_model, usage)
    return cost
