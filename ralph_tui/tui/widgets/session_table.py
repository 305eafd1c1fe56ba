"""The session browser's list: one line per session in fixed columns, under a header.

An ``OptionList`` of pre-formatted lines rather than a ``DataTable``: each line is
one ``Content``, which Textual paints several times faster than a table's cells,
so a new page or a search result shows without a visible pause.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ralph_tui.counts import counted
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import CacheSaving, SessionRecord
from ralph_tui.tui.core import formatting as fmt
from ralph_tui.tui.core.run_status import OUTCOME_STYLES

COLUMNS = (
    ("Date", 16),
    ("Mode", 4),
    ("Status", 9),
    ("Iter", 4),
    ("Time", 6),
    ("Tokens", 10),
    ("Cost", 7),
    ("Saved", 8),
    ("Parent", 13),
    ("Query", 0),
)
"""Column labels and widths; the query takes what is left of the line."""
DROPPED_WHEN_NARROW = ("Saved", "Parent", "Tokens", "Iter")
"""Columns given up, in this order, so that the query keeps ``MIN_QUERY_WIDTH`` on a
narrow terminal rather than every line wrapping."""
GAP = " "
MIN_QUERY_WIDTH = 12
SCROLLBAR_WIDTH = 2


def _fixed(text: str, width: int) -> str:
    return fmt.clip(text, width).ljust(width)


def _used(columns: Sequence[tuple[str, int]]) -> int:
    """The width of the fixed columns and the gaps between all of them."""
    return sum(width for _label, width in columns) + len(GAP) * (len(columns) - 1)


def shown_columns(line_width: int) -> list[tuple[str, int]]:
    """The columns a line of ``line_width`` shows: all of them, or fewer when narrow."""
    columns = list(COLUMNS)
    for label in DROPPED_WHEN_NARROW:
        if _used(columns) + MIN_QUERY_WIDTH <= line_width:
            break
        columns = [column for column in columns if column[0] != label]
    return columns


def header_line(line_width: int) -> str:
    columns = shown_columns(line_width)
    return GAP.join(_fixed(label, width) if width else label for label, width in columns)


def query_width(line_width: int) -> int:
    return max(MIN_QUERY_WIDTH, line_width - _used(shown_columns(line_width)))


def cache_saved(saving: CacheSaving) -> str:
    """What the sub-call cache saved, as its column shows it: the money where the price was
    known (``$0.0061``), else the calls (``12 calls``); nothing when it saved nothing."""
    if not saving.calls:
        return ""
    if saving.cost_usd is not None:
        return fmt.cost(saving.cost_usd)
    return counted(saving.calls, "call")


def session_cells(record: SessionRecord) -> list[str]:
    """The text of each column for ``record`` (the status as readers should see it)."""
    seconds = record.duration_ms / 1000 if record.duration_ms is not None else None
    return [
        fmt.timestamp(record.created_at),
        record.mode,
        effective_status(record),
        str(record.iterations),
        fmt.duration(seconds),
        fmt.tokens_cell(record.input_tokens, record.output_tokens, record.estimated_calls),
        fmt.cost_cell(record.cost_usd, record.unknown_cost_calls),
        cache_saved(record.subcall_cache_saved),
        fmt.short_session_id(record.parent_session_id),
        record.query,
    ]


def session_line(record: SessionRecord, width: int) -> Content:
    """``record`` as one line of fixed columns (those ``width`` has room for), its status
    coloured."""
    cells = dict(zip((label for label, _width in COLUMNS), session_cells(record), strict=True))
    status_style = OUTCOME_STYLES[effective_status(record)]
    columns = shown_columns(width)
    parts: list[str | tuple[str, str]] = []
    for number, (label, cell_width) in enumerate(columns):
        text = _fixed(cells[label], cell_width or query_width(width))
        text += GAP if number < len(columns) - 1 else ""
        parts.append((text, status_style) if label == "Status" else text)
    return Content.assemble(*parts)


class SessionTable(OptionList):
    """Sessions as lines keyed by session id; ``show`` replaces them, ``append`` adds more."""

    DEFAULT_CSS = """
    SessionTable, SessionTable:focus { height: 1fr; border: none; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.records: dict[str, SessionRecord] = {}

    def show(self, records: Sequence[SessionRecord], keep: str | None = None) -> None:
        """Replace the lines; the cursor stays on session ``keep`` if it is still listed."""
        self.clear_options()
        self.records = {}
        self.append(records)
        if keep is not None and keep in self.records:
            self.highlighted = self.get_option_index(keep)
        elif self.option_count:
            self.highlighted = 0

    @property
    def line_width(self) -> int:
        """The width of a line: the list's, less room for a scrollbar, so lines never wrap
        once the list can scroll."""
        return self.scrollable_content_region.width - SCROLLBAR_WIDTH

    def append(self, records: Sequence[SessionRecord]) -> None:
        width = self.line_width
        fresh = [r for r in records if r.session_id not in self.records]
        self.records.update((r.session_id, r) for r in fresh)
        self.add_options([Option(session_line(r, width), id=r.session_id) for r in fresh])

    @property
    def session_ids(self) -> list[str]:
        return list(self.records)

    @property
    def selected_session(self) -> str | None:
        if self.highlighted is None or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id
