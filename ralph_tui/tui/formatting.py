"""Short, fixed-width renderings of the numbers the TUI shows (tokens, cost, time)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path


def tokens(count: int) -> str:
    """``1234`` as ``1.2k``, ``2_500_000`` as ``2.5M``: token counts fit a status line."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def cost(usd: float | None) -> str:
    """Dollars with enough decimals for cheap calls; ``?`` when the price is unknown."""
    if usd is None:
        return "$?"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


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
