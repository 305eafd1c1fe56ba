"""Prices of models without a list price, as ``--price`` / ``RALPH_PRICES`` give them."""

from __future__ import annotations

KNOWN_PROVIDERS = ("anthropic", "openai", "offline")
"""The providers a ``provider:`` prefix of a model may name (``llm.models`` reads it)."""


def model_name(spec: str) -> str:
    """``spec`` without a ``provider:`` prefix, which counts only when it names a known
    provider: ``openai:qwen2.5:7b`` and ``qwen2.5:7b`` are both ``qwen2.5:7b``."""
    prefix, colon, rest = spec.strip().partition(":")
    if colon and prefix.lower() in KNOWN_PROVIDERS and rest:
        return rest
    return spec.strip()


def parse_prices(text: str) -> dict[str, tuple[float, float]]:
    """``MODEL=IN/OUT,...`` as ``{model: (in, out)}`` (USD per million tokens); a
    ``provider:`` prefix on the model is dropped (a colon inside a model's own name, as in
    ``qwen2.5:7b``, is kept). ``ValueError`` says what is wrong."""
    prices: dict[str, tuple[float, float]] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        model, _, pair = item.partition("=")
        rates = pair.split("/")
        try:
            if not model.strip() or len(rates) != 2:
                raise ValueError
            low, high = float(rates[0]), float(rates[1])
        except ValueError:
            raise ValueError(
                f"{item!r} is not MODEL=IN/OUT (USD per million input/output tokens, "
                "e.g. smollm2=0.1/0.2)"
            ) from None
        if min(low, high) < 0:
            raise ValueError(f"{item!r}: a price cannot be negative")
        prices[model_name(model).lower()] = (low, high)
    return prices
