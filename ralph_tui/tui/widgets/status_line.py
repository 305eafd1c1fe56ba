"""The run's header line: session, mode, progress counters, tokens, cost, time, sandbox."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from ralph_tui.counts import counted
from ralph_tui.tui.core import formatting as fmt
from ralph_tui.tui.core.run_status import IDLE, status_badge

if TYPE_CHECKING:
    from ralph_tui.tui.core.run_progress import RunProgress

LONG_PHASE_S = 5.0
"""A phase running longer than this gets a heartbeat indicator."""


def _counter(label: str, value: int, of: int) -> str:
    return f"{label} {value}/{of}" if of else f"{label} {value}"


def cache_share(p: RunProgress) -> list[str]:
    """``  cache 45%``: the input tokens served from the prompt cache, when a provider said."""
    if p.cache_read_tokens is None or p.input_tokens <= 0:
        return []
    return [f"  cache {p.cache_read_tokens * 100 // p.input_tokens}%"]


def cache_saved(p: RunProgress) -> list[str]:
    """``  saved 12 calls $0.0061``: what the sub-call cache saved, once it saved anything."""
    if not p.saved_calls:
        return []
    money = "" if p.saved_cost_usd is None else f" {fmt.cost(p.saved_cost_usd)}"
    return [f"  saved {counted(p.saved_calls, 'call')}{money}"]


def first_token(p: RunProgress) -> list[str]:
    """``  1st token 420 ms``: how long the newest streamed turn took to start arriving."""
    if p.first_token_ms is None:
        return []
    return [f"  1st token {fmt.millis(p.first_token_ms)}"]


def _sandbox(isolation: str | None) -> str | tuple[str, str]:
    """The sandbox's isolation; a warning when the run had to settle for a weaker one."""
    # Imported here: the sandbox package loads its process machinery, which the app's
    # start-up can skip.
    from ralph_tui.sandbox.host import DEGRADED

    if isolation in DEGRADED:
        return (f"  sandbox {isolation}: not fully isolated", "bold $text-warning")
    return f"  sandbox {isolation or '?'}"


def children(p: RunProgress) -> list[str]:
    """The child agents (``rlm_query``) running and ended, once the run has started one."""
    if not p.children_live and not p.children_done:
        return []
    return [f"  children {p.children_live} live, {p.children_done} done"]


def badge_of(word: str, style: str) -> tuple[str, str]:
    """The status word as the line shows it, in its style."""
    return (f" {word.upper()} ", f"{style} reverse")


def idle_content() -> Content:
    """The line before any run (the progress model is not needed for it)."""
    return Content.assemble(
        badge_of(*status_badge(None, None)),
        ("  no run yet: fill in the form and start one", "dim"),
    )


def status_content(progress: RunProgress, now: float | None = None) -> Content:
    """The line for ``progress`` at time ``now`` (the elapsed clock and heartbeat use it)."""
    p = progress
    now = time.time() if now is None else now
    word, style = status_badge(p.outcome, p.lifecycle)
    if p.outcome is None and word == IDLE:
        return idle_content()
    badge = badge_of(word, style)
    if not p.session_id:
        return Content.assemble(badge, (f"  {p.error or 'starting…'}", "$text-muted"))
    parts: list[str | tuple[str, str]] = [
        badge,
        ("  " + (p.session_id or "(starting)"), "bold"),
        f"  {p.mode}",
        *([f"  variant {p.variant}"] if p.variant else []),
        *([f"  {p.inner}{' (auto)' if p.inner_auto else ''}"] if p.inner else []),
        f"  {_counter('iter', p.iteration, p.max_iters)}",
        # Named by its agent (worker 2/80, judge 1/4): their steps count against different
        # budgets.
        f"  {_counter(p.agent or 'step', p.step, p.max_steps)}",
        f"  {_counter('sub', p.sub_calls, p.sub_budget)}",
        *children(p),
        f"  tok {fmt.tokens_in_out(p.input_tokens, p.output_tokens, p.estimated_calls)}",
        *cache_share(p),
        f"  {fmt.cost(p.cost_usd, p.unknown_cost_calls)}",
        *cache_saved(p),
        *first_token(p),
        f"  {fmt.duration(p.elapsed_s(now))}",
        _sandbox(p.isolation),
    ]
    if p.index is not None and p.index.stage != "ready":
        share = f" {p.index.done * 100 // p.index.total}%" if p.index.total else ""
        parts.append((f"  indexing {p.index.stage}{share}", "$text-warning"))
    running_for = p.phase_running_s(now)
    if (
        p.phase
        and running_for is not None
        and (running_for >= LONG_PHASE_S or p.last_heartbeat_ts is not None)
    ):
        parts.append((f"  ♥ {p.phase} {fmt.duration(running_for)}", "bold $text-warning"))
    elif p.phase:
        parts.append((f"  {p.phase}…", "$text-muted"))
    return Content.assemble(*parts)


class RunStatusLine(Static):
    """Shows a ``RunProgress``; the owner calls ``show`` on changes and once a second."""

    DEFAULT_CSS = """
    RunStatusLine {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $panel;
    }
    """

    def show(self, progress: RunProgress, now: float | None = None) -> None:
        self.update(status_content(progress, now))

    def show_idle(self) -> None:
        """Say that no run has started yet."""
        self.update(idle_content())
