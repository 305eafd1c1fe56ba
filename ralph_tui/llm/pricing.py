"""Price table: US dollars per million tokens, for the models whose list prices we know.

A model missing here has an unknown cost (``None``): it is reported as unknown, never
guessed. Dated snapshots (``claude-haiku-4-5-20251001``, ``gpt-4o-mini-2024-07-18``) are
priced as their family. Prices are standard-tier list prices without prompt caching or
batch discounts, which this project does not use.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Price(NamedTuple):
    """USD per million input tokens and per million output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """US dollars for a call of these sizes."""
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


PRICES: dict[str, Price] = {
    # Anthropic
    "claude-opus-4-6": Price(5.0, 25.0),
    "claude-opus-4-5": Price(5.0, 25.0),
    "claude-opus-4-1": Price(15.0, 75.0),
    "claude-opus-4": Price(15.0, 75.0),
    "claude-opus-4-0": Price(15.0, 75.0),
    "claude-sonnet-4-6": Price(3.0, 15.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-sonnet-4-0": Price(3.0, 15.0),
    "claude-3-7-sonnet": Price(3.0, 15.0),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.80, 4.0),
    # OpenAI chat
    "gpt-5.4-mini": Price(0.75, 4.50),
    "gpt-5.4-nano": Price(0.20, 1.25),
    "gpt-5.1": Price(1.25, 10.0),
    "gpt-5": Price(1.25, 10.0),
    "gpt-5-mini": Price(0.25, 2.0),
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-4.1": Price(2.0, 8.0),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.0),
    "gpt-4o-mini": Price(0.15, 0.60),
    "o4-mini": Price(1.10, 4.40),
    "o3-mini": Price(1.10, 4.40),
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


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """What a call cost in US dollars, or ``None`` when the model's price is unknown."""
    price = price_of(model)
    return None if price is None else price.cost(input_tokens, output_tokens)
