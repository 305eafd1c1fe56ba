"""What the run the form describes is estimated to spend: made in a thread a moment after
the form last changed (typing is never held up), and shown in a few lines."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.widgets import Static

from ralph_tui.config import Settings
from ralph_tui.errors import as_ralph_error

if TYPE_CHECKING:
    from ralph_tui.estimates import RunEstimate
    from ralph_tui.tui.core.form_values import RunFormValues

ESTIMATE_DELAY_S = 0.4
"""How long to wait after a change before estimating: a word typed is one estimate, not one
a key."""
NO_ESTIMATE = "Estimate: choose a document to see what the run may cost."
SIZING = "Estimate: reading the documents to size the run…"
"""Shown while the first estimate of a form with documents is made (a long PDF takes a few
seconds to read), in place of ``NO_ESTIMATE``; a later one replaces the last when ready."""


class EstimateView(Static):
    """The latest estimate of the form's run; ``soon()`` after each change of the form.

    ``draft`` reads the form's values as they stand (``ValueError`` when they cannot be
    estimated yet: no document)."""

    DEFAULT_CSS = "EstimateView { margin-top: 1; color: $text-muted; }"

    def __init__(
        self, settings: Settings, draft: Callable[[], RunFormValues], *, id: str | None = None
    ) -> None:
        super().__init__(NO_ESTIMATE, id=id, markup=False)
        self.settings = settings
        self.draft = draft
        self.estimate: tuple[RunFormValues, RunEstimate] | None = None
        """The latest estimate, and the values it is of."""
        self.estimating = False
        """An estimate is due or being made (what is shown may be out of date)."""
        self._timer: Timer | None = None
        self._round = 0

    def estimate_of(self, values: RunFormValues) -> RunEstimate | None:
        """The estimate of ``values``, when the latest is of them."""
        if self.estimate is not None and self.estimate[0] == values:
            return self.estimate[1]
        return None

    def soon(self) -> None:
        """Estimate again a moment after the last change."""
        if self._timer is not None:
            self._timer.stop()
        self.estimating = True
        self._round += 1  # what is being estimated now is out of date
        self._timer = self.set_timer(ESTIMATE_DELAY_S, self._now)

    def _now(self) -> None:
        try:
            values = self.draft()
        except ValueError:
            self._settle(None, NO_ESTIMATE)
            return
        if self.estimate is None:
            self.update(SIZING)
        self.run_worker(
            partial(self._compute, self._round, values),
            thread=True,
            group="estimate",
            exit_on_error=False,
        )

    def _compute(self, round_: int, values: RunFormValues) -> None:
        """In a thread: the documents are read for their size, the index for past runs."""
        from ralph_tui.tui.core.requests import form_estimate

        result: RunEstimate | str
        try:
            result = form_estimate(values, self.settings)
        except Exception as exc:  # shown here; the run reports it properly if started
            result = f"Estimate: {as_ralph_error(exc).one_line()}"
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            self.app.call_from_thread(self._made, round_, values, result)

    def _made(self, round_: int, values: RunFormValues, result: RunEstimate | str) -> None:
        if round_ != self._round:
            return  # the form changed since: a newer estimate is on its way
        if isinstance(result, str):
            self._settle(None, result)
            return
        from ralph_tui.tui.core.estimate_text import form_summary

        self._settle((values, result), form_summary(result))

    def _settle(self, estimate: tuple[RunFormValues, RunEstimate] | None, text: str) -> None:
        self.estimate = estimate
        self.estimating = False
        self.update(text)
