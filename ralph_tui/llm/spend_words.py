"""What a run spent, in words: the one rendering of cost and tokens that the command line's
progress and run summary, ``sessions show``, the app's status line and session views, and the
reports all use, so none of them shows an unknown cost as ``$0.0000`` or an estimate as a
provider's count.

- A cost is ``$0.0123`` when every call had a price, ``cost unknown`` when none had, and
  ``$0.0123 + unknown`` when some had not (the known part, and a word that more was spent).
- Tokens whose server reported none (``Usage.estimated``) are said to be estimated, with how
  many calls that covers.
"""

from __future__ import annotations

from ralph_tui.counts import counted, noun_for


def money(usd: float) -> str:
    """Dollars with enough decimals for cheap calls: ``$0.0061``, ``$12.33``."""
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def cost_words(cost_usd: float | None, unknown_cost_calls: int = 0) -> str:
    """``$0.0123``, ``cost unknown`` (no call had a price) or ``$0.0123 + unknown`` (some
    calls had none: ``cost_usd`` is only the known part)."""
    if cost_usd is None:
        return "cost unknown"
    if unknown_cost_calls > 0:
        return f"{money(cost_usd)} + unknown"
    return money(cost_usd)


def estimated_words(estimated_calls: int, calls: int | None = None) -> str:
    """``estimated for 3 of 12 calls`` (``''`` when no call's tokens were estimated)."""
    if estimated_calls <= 0:
        return ""
    total = calls if calls is not None and calls > estimated_calls else None
    of = f" of {total:,}" if total is not None else ""
    return f"estimated for {estimated_calls:,}{of} {noun_for(total or estimated_calls, 'call')}"


def tokens_words(
    input_tokens: int, output_tokens: int, estimated_calls: int = 0, calls: int | None = None
) -> str:
    """``1,234 tokens in / 56 out``, and ``(estimated for 3 of 12 calls)`` when a server
    reported no usage for some."""
    estimated = estimated_words(estimated_calls, calls)
    return f"{input_tokens:,} tokens in / {output_tokens:,} out" + (
        f" ({estimated})" if estimated else ""
    )


def describe_saved(
    calls: int, input_tokens: int, output_tokens: int, cost_usd: float | None
) -> str:
    """What the sub-call cache saved, as the command line and ``sessions show`` say it:
    ``sub-call cache saved 12 calls, 30,000 tokens in / 1,200 out, $0.0061`` (the cost
    left out when no saved call had a known price)."""
    spent = "" if cost_usd is None else f", {money(cost_usd)}"
    return (
        f"sub-call cache saved {counted(calls, 'call')}, "
        f"{input_tokens:,} tokens in / {output_tokens:,} out{spent}"
    )
