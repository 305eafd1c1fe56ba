"""The sandbox transcript: each cell's code (highlighted), output, errors and duration
(in the LCM mode each tool call, its arguments and result), and each ``llm_query``
sub-call, newest at the bottom. A child agent (``rlm_query``) shows as a fold
(``ChildFold``): the call that started it, then how it ended, with the child's own cells,
sub-calls and children inside it, where they go as they happen (children that run at once
each fill their own fold). A fold is open while its child runs and folds itself when the
child ends; a click (or Enter on it) opens or folds it again.

Memory stays bounded however long the run: at most ``MAX_ENTRIES`` entries are kept
on screen (the oldest are removed), entries waiting to be shown are capped the same
way, and at most ``MOUNT_PER_FLUSH`` are added per repaint so a flood of cells never
stalls the UI. The pane follows new entries unless the user has scrolled up.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from ralph_tui.tui.core.formatting import clip, millis
from ralph_tui.tui.core.partial_turn import code_being_written

if TYPE_CHECKING:
    from textual import events

    from ralph_tui.events import (
        BaseEvent,
        ChildFinished,
        ChildStarted,
        ModelTurnPartial,
        SandboxExecuted,
        SubQuery,
        ToolExecuted,
    )

    Entry = SandboxExecuted | ToolExecuted | SubQuery | ChildStarted | ChildFinished

MAX_ENTRIES = 100
"""Sandbox entries kept: in the live pane, and per iteration of a replayed transcript."""
MOUNT_PER_FLUSH = 8
CODE_LINES = 60
OUTPUT_LINES = 30
PREVIEW_CHARS = 300
MAX_LEVEL = 3
"""The deepest indentation (a child of ``--max-depth 4``'s deepest level is at 3)."""


def _head(text: str, max_lines: int) -> str:
    """The first ``max_lines`` lines, with a note of how many were left out."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join([*lines[:max_lines], f"… {len(lines) - max_lines} more lines"])


def cell_content(event: SandboxExecuted) -> Content:
    """One executed cell: a header line, the highlighted code, then output and error."""
    from textual.highlight import highlight  # with the highlighter: after the first paint

    flags = [
        ("timed out", event.timed_out),
        ("restarted", event.restarted),
        ("error", event.error is not None),
    ]
    header = Content.assemble(
        (f"{event.agent} step {event.step}", "bold $text-primary"),
        (f"  {millis(event.duration_ms)}", "$text-muted"),
        *[(f"  {name}", "bold $text-error") for name, on in flags if on],
    )
    parts = [header, highlight(_head(event.code, CODE_LINES), language="python")]
    if event.output.strip():
        parts.append(Content.styled(_head(event.output.rstrip(), OUTPUT_LINES), "$text-muted"))
    if event.error:
        parts.append(Content.styled(_head(event.error.rstrip(), OUTPUT_LINES), "$text-error"))
    return Content("\n").join(parts)


def tool_content(event: ToolExecuted) -> Content:
    """One tool call of the LCM agent: a header line, its arguments, what it returned."""
    from textual.highlight import highlight

    header = Content.assemble(
        (f"{event.agent} step {event.step}", "bold $text-primary"),
        (f"  {event.tool}", "bold"),
        (f"  {millis(event.duration_ms)}", "$text-muted"),
        *([("  failed", "bold $text-error")] if not event.ok else []),
    )
    result = Content.styled(
        _head(event.result.rstrip(), OUTPUT_LINES), "$text-muted" if event.ok else "$text-error"
    )
    return Content("\n").join([header, highlight(event.arguments, language="json"), result])


def sub_query_content(event: SubQuery) -> Content:
    """One ``llm_query`` call: budget use, latency, tokens, prompt and answer previews; an
    answer from the sub-call cache says so (its tokens are what it saved)."""
    budget = f" {event.calls_used}/{event.calls_budget}" if event.calls_budget else ""
    tokens = f"  {event.input_tokens}→{event.output_tokens} tok" if event.input_tokens else ""
    header = Content.assemble(
        (f"llm_query{budget}", "bold $text-secondary"),
        *([("  cached, not paid", "bold $text-success")] if event.cached else []),
        (f"  {millis(event.latency_ms)}{tokens}", "$text-muted"),
    )
    lines = [header, Content.assemble(("? ", "bold"), clip(event.prompt_preview, PREVIEW_CHARS))]
    if event.error:
        lines.append(Content.styled(f"! {clip(event.error, PREVIEW_CHARS)}", "$text-error"))
    else:
        lines.append(Content.assemble(("= ", "bold"), clip(event.answer_preview, PREVIEW_CHARS)))
    return Content("\n").join(lines)


def child_started_content(event: ChildStarted) -> Content:
    """The ``rlm_query`` call that started a child agent: the child, what it explores,
    the question it was asked."""
    header = Content.assemble(
        (f"rlm_query → {event.child}", "bold $text-accent"),
        (f"  depth {event.depth}, over {event.context}", "$text-muted"),
    )
    question = Content.assemble(("? ", "bold"), clip(event.prompt_preview, PREVIEW_CHARS))
    return Content("\n").join([header, question])


def fold_title(started: ChildStarted, finished: ChildFinished | None, open_: bool) -> Content:
    """A fold's title: its marker (open or folded), the call that started the child, and
    once it ended how it ended."""
    marker = Content.styled("▾ " if open_ else "▸ ", "bold $text-accent")
    parts = [marker + child_started_content(started)]
    if finished is None:
        parts.append(Content.styled("running…", "italic $text-muted"))
    else:
        parts.append(child_finished_content(finished))
    return Content("\n").join(parts)


def child_finished_content(event: ChildFinished) -> Content:
    """How a child agent ended, and what it answered (or why it could not)."""
    if event.status == "llm_query":
        ended = "answered by llm_query (the deepest level)"
    elif event.status == "failed":
        ended = "failed"
    else:
        ended = f"{event.status} in {event.steps} step{'' if event.steps == 1 else 's'}"
    header = Content.assemble(
        (f"{event.child} ", "bold $text-accent"),
        (ended, "bold $text-error" if event.status == "failed" else "bold"),
        (f"  {millis(event.duration_ms)}", "$text-muted"),
    )
    if event.error:
        said = Content.styled(f"! {clip(event.error, PREVIEW_CHARS)}", "$text-error")
    else:
        said = Content.assemble(("= ", "bold"), clip(event.answer_preview, PREVIEW_CHARS))
    return Content("\n").join([header, said])


def level_of(event: Entry) -> int:
    """How deep an entry sits in the tree of agents: 0 for the root's own entries, a
    child's one more than its parent's; a child's start and end sit at its parent's."""
    from ralph_tui.events import ChildFinished, ChildStarted

    if isinstance(event, ChildStarted | ChildFinished):
        return min(max(event.depth - 2, 0), MAX_LEVEL)
    return min(event.agent.count("/"), MAX_LEVEL)


def writing_content(turn: ModelTurnPartial, code: str, lines: int = CODE_LINES) -> Content:
    """The cell the model is writing: a header line, then the code so far (its last
    ``lines`` lines), plain: code cut mid-string would highlight wrongly, and re-highlighting
    a growing cell ten times a second costs more than showing it. The cell is highlighted
    once it runs."""
    header = Content.assemble(
        (f"{turn.agent} step {turn.step}", "bold $text-primary"),
        ("  writing…", "italic $text-muted"),
    )
    last = code.splitlines()[-max(1, lines) :]
    return Content("\n").join([header, Content("\n".join(last))])


class SandboxEntry(Static):
    """One transcript entry (a cell or a sub-call); its classes say which and how it went.

    Its look is set in ``SandboxPane``'s CSS, which is loaded with the app: a class
    with CSS of its own would cost a stylesheet update on its first mount, mid-run.
    """

    holder: ChildFold | None = None
    """The fold it is in (``None``: the pane itself)."""

    @classmethod
    def for_event(cls, event: Entry, *, folded: bool = False) -> SandboxEntry:
        """The entry of ``event``; indented by its level in the tree unless ``folded`` (in
        its child's fold, whose nesting indents it)."""
        entry = cls._of(event)
        level = level_of(event)
        if level and not folded:
            entry.add_class(f"-level-{level}")
        return entry

    @classmethod
    def _of(cls, event: Entry) -> SandboxEntry:
        from ralph_tui.events import ChildFinished, ChildStarted, SandboxExecuted, ToolExecuted

        if isinstance(event, SandboxExecuted):
            failed = event.error is not None or event.timed_out
            return cls(cell_content(event), classes="cell failed" if failed else "cell")
        if isinstance(event, ToolExecuted):
            return cls(tool_content(event), classes="cell" if event.ok else "cell failed")
        if isinstance(event, ChildStarted):
            return cls(child_started_content(event), classes="child")
        if isinstance(event, ChildFinished):
            failed = event.status == "failed"
            return cls(child_finished_content(event), classes="child failed" if failed else "child")
        classes = "sub-query failed" if event.error else "sub-query"
        return cls(sub_query_content(event), classes=classes)


class ChildFold(Vertical, can_focus=True):
    """A child agent's entries folded under the ``rlm_query`` call that started it.

    Entries may arrive before the fold is mounted (in the same flush as its start): they
    wait in ``_early`` and are mounted, in order, with it. Its look is in ``SandboxPane``'s
    CSS, as ``SandboxEntry``'s is.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space", "fold", "Fold", show=False)]

    def __init__(self, started: ChildStarted, holder: ChildFold | None) -> None:
        super().__init__(classes="fold")
        self.started = started
        self.finished: ChildFinished | None = None
        self.holder = holder
        """The fold this one is in (``None``: it is in the pane)."""
        self.open = True
        self._title = Static(fold_title(started, None, True), classes="fold-title")
        self._body = Vertical(classes="fold-body")
        self._early: list[Widget] | None = []

    def compose(self) -> Iterable[Widget]:
        yield self._title
        yield self._body

    def on_mount(self) -> None:
        early, self._early = self._early or [], None
        if early:
            self._body.mount_all(early)

    def add(self, widget: Widget) -> None:
        """Put ``widget`` (an entry or a fold) at the end of this fold."""
        if self._early is not None:
            self._early.append(widget)
        else:
            self._body.mount(widget)

    def finish(self, event: ChildFinished) -> None:
        """The child ended: say how, and fold it."""
        self.finished = event
        self.set_class(event.status == "failed", "failed")
        self.set_open(False)

    def set_open(self, open_: bool) -> None:
        self.open = open_
        self._body.display = open_
        self._title.update(fold_title(self.started, self.finished, open_))

    def action_fold(self) -> None:
        self.set_open(not self.open)

    def on_click(self, event: events.Click) -> None:
        # Only a click on the title folds: one inside the body belongs to an entry.
        if event.widget is self._title or (
            event.widget is not None and self._title in event.widget.ancestors_with_self
        ):
            event.stop()
            self.action_fold()


def inside(widget: Widget, fold: ChildFold) -> bool:
    """Whether ``widget`` (an entry or a fold of the pane) is in ``fold``, at any depth."""
    holder = getattr(widget, "holder", None)
    while holder is not None:
        if holder is fold:
            return True
        holder = holder.holder
    return False


class SandboxPane(VerticalScroll):
    """A bounded, self-following list of sandbox entries fed in batches."""

    DEFAULT_CSS = """
    SandboxPane SandboxEntry {
        padding: 0 1;
        margin-bottom: 1;
        border-left: outer $primary 60%;
        &.sub-query { border-left: outer $secondary 60%; }
        &.child { border-left: outer $accent 60%; }
        &.failed { border-left: outer $error; }
        &.-level-1 { margin: 0 0 1 3; }
        &.-level-2 { margin: 0 0 1 6; }
        &.-level-3 { margin: 0 0 1 9; }
    }
    SandboxPane ChildFold {
        height: auto;
        margin-bottom: 1;
        border-left: outer $accent 60%;
        &.failed { border-left: outer $error; }
        &:focus { background: $boost; }
        & > .fold-title { padding: 0 1; }
        & > .fold-body { height: auto; padding: 1 0 0 2; }
    }
    SandboxPane > #sandbox-dropped { color: $text-muted; padding: 0 1; display: none; }
    SandboxPane.-dropped > #sandbox-dropped { display: block; }
    SandboxPane > #sandbox-empty { color: $text-muted; padding: 0 1; }
    SandboxPane > #sandbox-writing {
        padding: 0 1;
        border-left: outer $accent 60%;
        display: none;
    }
    SandboxPane.-writing > #sandbox-writing { display: block; }
    """

    def __init__(
        self,
        *,
        empty_text: str = "No sandbox cells yet.",
        follow: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.follow = follow
        self._pending: deque[Entry] = deque(maxlen=MAX_ENTRIES)
        self._shown: deque[SandboxEntry | ChildFold] = deque()
        """Entries and folds mounted and kept, oldest first: counted here, not queried from
        the DOM, where a removal still in progress would be counted (and dropped) twice."""
        self._folds: dict[str, ChildFold] = {}
        """Each kept child's fold, by the child's agent name."""
        self._empty_text = empty_text
        self.dropped = 0
        """Entries not kept: scrolled off the cap or skipped while arriving too fast."""

    def compose(self) -> Iterable[Static]:
        yield Static("", id="sandbox-dropped")
        yield Static(self._empty_text, id="sandbox-empty")
        yield Static("", id="sandbox-writing")

    def show_writing(self, turn: ModelTurnPartial | None) -> None:
        """Show the code ``turn`` is writing below the entries (one widget, updated in
        place); ``None``, or a turn that is not writing code, hides it."""
        code = code_being_written(turn) if turn is not None else None
        writing = self.query_one("#sandbox-writing", Static)
        if turn is None or not code:
            self.remove_class("-writing")
            return
        self.query_one("#sandbox-empty").display = False
        # No more lines than the pane has rows below the header, which so stays in sight
        # (a line too long for the pane still wraps onto two).
        rows = min(CODE_LINES, self.scrollable_content_region.height - 1)
        writing.update(writing_content(turn, code, rows))
        self.add_class("-writing")

    def set_follow(self, follow: bool) -> None:
        """Keep to the newest entry (a live run), or stay where the user is (a replay)."""
        if follow != self.follow:
            self.follow = follow
            if follow:
                self._keep_following()
            else:
                self.anchor(False)

    def watch_virtual_size(self) -> None:
        # Laid out anew: the content may have come to overflow the pane, or stopped.
        self.call_later(self._keep_following)

    def _keep_following(self) -> None:
        """Keep to the newest content while it overflows the pane, and only then: anchored
        while its content is shorter than the pane, Textual puts the content at the pane's
        bottom (it scrolls to the content's end, above the pane's top), so a cell being
        written climbed up the empty pane with every update."""
        overflows = self.max_scroll_y > 0
        if self.follow and overflows and not self.is_anchored:
            self.anchor()
        elif self.is_anchored and not overflows:
            self.anchor(False)

    def _go_to_start(self) -> None:
        """Back to the top; following (if on) starts again with the first entry."""
        self.anchor(False)
        if not self.follow:
            # Only when not following: a scroll still pending when the next entries
            # arrive would release the new anchor.
            self.scroll_home(animate=False)

    @property
    def entries(self) -> list[SandboxEntry | ChildFold]:
        """The entries and folds kept, in the order they came."""
        return list(self._shown)

    @property
    def folds(self) -> dict[str, ChildFold]:
        """Each kept child's fold, by its agent name."""
        return dict(self._folds)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def add(self, events: Iterable[BaseEvent]) -> None:
        """Queue the cells, sub-calls and child agents' starts and ends among ``events`` to
        be shown at the next flush."""
        from ralph_tui.events import (
            ChildFinished,
            ChildStarted,
            SandboxExecuted,
            SubQuery,
            ToolExecuted,
        )

        for event in events:
            if isinstance(
                event, SandboxExecuted | ToolExecuted | SubQuery | ChildStarted | ChildFinished
            ):
                if len(self._pending) == self._pending.maxlen:
                    self.dropped += 1
                self._pending.append(event)

    def flush(self) -> None:
        """Show up to ``MOUNT_PER_FLUSH`` queued entries and drop the oldest beyond the cap."""
        if not self._pending:
            return
        from ralph_tui.events import ChildFinished, ChildStarted

        self.query_one("#sandbox-empty").display = False
        top: list[Widget] = []
        for _ in range(min(MOUNT_PER_FLUSH, len(self._pending))):
            event = self._pending.popleft()
            holder = self._fold_of(event.agent)
            if isinstance(event, ChildFinished) and event.child in self._folds:
                self._folds[event.child].finish(event)
                continue
            widget: SandboxEntry | ChildFold
            if isinstance(event, ChildStarted):
                widget = self._folds[event.child] = ChildFold(event, holder)
            else:
                widget = SandboxEntry.for_event(event, folded=holder is not None)
                widget.holder = holder
            if holder is None:
                top.append(widget)
            else:
                holder.add(widget)
            self._shown.append(widget)
        if top:
            self.mount_all(top, before="#sandbox-writing")
        self._drop_oldest()
        if self.dropped:
            self.add_class("-dropped")
            self.query_one("#sandbox-dropped", Static).update(
                f"… {self.dropped} earlier entries not kept"
            )

    def _fold_of(self, agent: str) -> ChildFold | None:
        """The fold of ``agent``'s entries: its own, else its nearest kept ancestor's
        (``None``: the pane itself)."""
        while "/" in agent:
            if agent in self._folds:
                return self._folds[agent]
            agent = agent.rsplit("/", 1)[0]
        return self._folds.get(agent)

    def _drop_oldest(self) -> None:
        """Drop the oldest entries past ``MAX_ENTRIES`` (a fold with all it holds)."""
        gone: list[Widget] = []
        while len(self._shown) > MAX_ENTRIES:
            oldest = self._shown.popleft()
            gone.append(oldest)
            self.dropped += 1
            if isinstance(oldest, ChildFold):
                within = [w for w in self._shown if inside(w, oldest)]
                self.dropped += len(within)
                self._shown = deque(w for w in self._shown if not inside(w, oldest))
                self._folds = {
                    name: fold
                    for name, fold in self._folds.items()
                    if fold is not oldest and not inside(fold, oldest)
                }
        if gone:
            folds = [g for g in gone if isinstance(g, ChildFold)]
            self.remove_children([w for w in gone if not any(inside(w, f) for f in folds)])

    def reset(self) -> None:
        """Forget every entry (a new run, or another iteration's transcript)."""
        self._pending.clear()
        self._shown.clear()
        self._folds.clear()
        self.dropped = 0
        self.remove_class("-dropped", "-writing")
        self.remove_children([*self.query_children(SandboxEntry), *self.query_children(ChildFold)])
        self.query_one("#sandbox-empty").display = True
        self._go_to_start()
