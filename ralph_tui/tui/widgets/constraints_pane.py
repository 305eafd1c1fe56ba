"""The constraints in force: for the iteration running now, or for the next one once known."""

from __future__ import annotations

from collections.abc import Iterable

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ralph_tui.tui.core.run_progress import RunProgress


def constraints_content(progress: RunProgress) -> Content:
    """The list the next iteration will get, else the one the current iteration runs with."""
    p = progress
    if p.next_constraints is not None:
        title, items = f"For iteration {p.iteration + 1}", p.next_constraints
    elif p.iteration:
        title, items = f"In force for iteration {p.iteration}", p.constraints_in_force
    else:
        return Content.styled("No constraints yet: iteration 1 runs without any.", "$text-muted")
    if not items:
        return Content.assemble((title, "bold"), ("\n(none)", "$text-muted"))
    lines = [Content.styled(title, "bold")]
    lines.extend(
        Content.assemble((f"{n:>2}. ", "$text-accent"), item) for n, item in enumerate(items, 1)
    )
    return Content("\n").join(lines)


class ConstraintsPane(VerticalScroll):
    """A scrolling view of ``constraints_content``."""

    def compose(self) -> Iterable[Static]:
        yield Static(constraints_content(RunProgress()), id="constraints-text")

    def show(self, progress: RunProgress) -> None:
        self.query_one("#constraints-text", Static).update(constraints_content(progress))
