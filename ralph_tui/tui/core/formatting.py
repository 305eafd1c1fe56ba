"""Short, fixed-width renderings of the numbers the TUI shows (tokens, cost, time)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ralph_tui.llm.spend_words import cost_words


def tokens(count: int) -> str:
    """``1234`` as ``1.2k``, ``2_500_000`` as ``2.5M``: token counts fit a status line."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def cost(usd: float | None, unknown_calls: int = 0) -> str:
    """Dollars with enough decimals for cheap calls; ``cost unknown`` when no call had a
    price, ``$0.0123 + unknown`` when some had not (as everything else says it)."""
    return cost_words(usd, unknown_calls)


def cost_cell(usd: float | None, unknown_calls: int = 0) -> str:
    """A cost in at most 7 characters, for a table's column: ``$0.0123``, ``unknown``, or
    ``$0.01+?`` (the known part, and more of unknown price)."""
    if usd is None:
        return "unknown"
    if unknown_calls > 0:
        return f"${usd:.2f}+?" if usd < 10 else f"${usd:.0f}+?"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def tokens_cell(input_tokens: int, output_tokens: int, estimated_calls: int = 0) -> str:
    """``1.2k/56`` for a table's column, ``~1.2k/56`` when some of it is estimated."""
    shown = f"{tokens(input_tokens)}/{tokens(output_tokens)}"
    return f"~{shown}" if estimated_calls > 0 else shown


def tokens_in_out(input_tokens: int, output_tokens: int, estimated_calls: int = 0) -> str:
    """``1.2k/56``, and ``1.2k/56 estimated`` when a server reported no usage for some calls
    (their tokens were counted by a tokenizer)."""
    shown = f"{tokens(input_tokens)}/{tokens(output_tokens)}"
    return f"{shown} estimated" if estimated_calls > 0 else shown


def duration(seconds: float | None) -> str:
    """``75.3`` as ``1:15``, ``3725`` as ``1:02:05``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def millis(ms: float) -> str:
    """A latency: ``840 ms`` or ``2.4 s``."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def timestamp(epoch: float) -> str:
    """Local date and time to the minute, as the session browser lists it."""
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"


def short_session_id(session_id: str | None) -> str:
    """The part after the date folder (``2025-03-01/qa-1a2b3c4d`` → ``qa-1a2b3c4d``)."""
    if not session_id:
        return ""
    return session_id.rsplit("/", 1)[-1]


def shown_path(path: Path) -> str:
    """``path`` as short as it can be told: relative to the working folder when inside it,
    ``~/…`` under the home folder, else whole."""
    absolute = path.expanduser().absolute()
    for base, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
        if absolute == base:
            return prefix.rstrip("/") or "."
        if absolute.is_relative_to(base):
            return prefix + str(absolute.relative_to(base))
    return str(absolute)


def quote_numbers(numbers: Sequence[int]) -> str:
    """``quote 2``, ``quotes 1, 3``, or ``no quote``."""
    if not numbers:
        return "no quote"
    return f"quote{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
