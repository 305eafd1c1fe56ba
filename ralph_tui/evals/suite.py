"""A suite: one item per JSONL line — ``{id, mode, query, doc, expect: {facts,
evidence_spans}}`` — each checked, a bad line named with what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from ralph_tui.atomic import write_atomic
from ralph_tui.config import Settings
from ralph_tui.documents import InputError, Limits, read_corpus
from ralph_tui.errors import UsageError
from ralph_tui.json_input import JsonRefused, parse_json


class Expectation(BaseModel):
    """What a good answer holds: facts (each must appear in it, case and spacing aside)
    and the spans of the document its evidence should come from."""

    facts: list[str] = Field(default_factory=list)
    evidence_spans: list[tuple[int, int]] = Field(default_factory=list)

    @field_validator("evidence_spans")
    @classmethod
    def _ordered(cls, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        for start, end in spans:
            if not 0 <= start < end:
                raise ValueError(
                    f"a span is [start, end] with 0 <= start < end, not {[start, end]}"
                )
        return spans


class EvalItem(BaseModel):
    """One question (or task) over one document, with what its answer should hold."""

    id: str = Field(min_length=1)
    mode: Literal["qa", "task"] = "qa"
    query: str = Field(min_length=1)
    doc: Path
    expect: Expectation = Field(default_factory=Expectation)
    meta: dict[str, Any] = Field(default_factory=dict)
    """Where the item sits in a generated suite (``size_tokens``, ``depth``)."""


MAX_SUITE_BYTES = 64_000_000
"""The largest suite file read (its documents are files of their own)."""


class SuiteError(UsageError):
    """A suite that cannot run: the file, the line and what is wrong with it."""

    title = "Bad eval suite"


def load_suite(path: Path, settings: Settings | None = None) -> list[EvalItem]:
    """The items of the JSONL suite at ``path`` (a ``doc`` is relative to the suite's
    folder); ``SuiteError`` for the first bad line, before anything runs.

    An item's evidence spans are checked against its document's text as a run reads it
    (under the size caps of ``settings``; not through the extraction cache, so a bad suite
    writes nothing): a span past its end could never be found.
    """
    try:
        size = path.stat().st_size
        if size > MAX_SUITE_BYTES:
            raise SuiteError(
                f"the suite {path} is {size:,} bytes, past the {MAX_SUITE_BYTES:,} a suite "
                "may hold (split it)"
            )
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SuiteError(f"cannot read the suite {path}: {exc.strerror or exc}") from None
    items: list[EvalItem] = []
    seen: set[str] = set()
    lengths: dict[Path, int] = {}
    limits = Limits.of(settings) if settings else Limits()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = _item(path, number, line)
        if item.id in seen:
            raise SuiteError(f"{path}:{number}: the id {item.id!r} is used twice")
        seen.add(item.id)
        if not item.doc.is_absolute():
            item = item.model_copy(update={"doc": (path.parent / item.doc).resolve()})
        if not item.doc.exists():
            raise SuiteError(f"{path}:{number}: the document {item.doc} does not exist")
        _check_spans(item, f"{path}:{number}", lengths, limits)
        items.append(item)
    if not items:
        raise SuiteError(f"{path}: the suite has no items (one JSON object a line)")
    return items


def _item(path: Path, number: int, line: str) -> EvalItem:
    try:
        data = parse_json(line, f"{path}:{number}")
    except JsonRefused as exc:
        raise SuiteError(exc.message) from None
    if not isinstance(data, dict):
        raise SuiteError(
            f"{path}:{number}: a line must be a JSON object, not {type(data).__name__}"
        )
    try:
        return EvalItem.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'the item'}: {err['msg']}"
            for err in exc.errors()
        )
        raise SuiteError(f"{path}:{number}: {problems}") from None


def _check_spans(
    item: EvalItem,
    where: str,
    lengths: dict[Path, int],
    limits: Limits,
) -> None:
    """``SuiteError`` for an evidence span that ends past the end of the item's document
    (``lengths`` keeps each document's length, so each is read once)."""
    if not item.expect.evidence_spans:
        return
    if item.doc not in lengths:
        try:
            lengths[item.doc] = len(read_corpus([item.doc], limits).text)
        except InputError as exc:
            raise SuiteError(f"{where}: {exc}", hint=exc.hint) from None
    length = lengths[item.doc]
    for start, end in item.expect.evidence_spans:
        if end > length:
            raise SuiteError(
                f"{where}: the evidence span [{start}, {end}] ends past the end of "
                f"{item.doc.name}, whose text is {length:,} characters long",
                hint="spans are character offsets into the document's text as ralph-tui reads "
                "it: `ralph-tui search DOC QUERY --json` shows the span of each passage",
            )


def write_suite(path: Path, items: list[EvalItem]) -> None:
    """The items as a JSONL suite (how a generated suite is kept with its results)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, "".join(item.model_dump_json() + "\n" for item in items))
