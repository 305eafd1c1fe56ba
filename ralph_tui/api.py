"""The Python API: ask a question of documents, or carry out a task over them, from a
script or a notebook, with the same loops, traces and typed events as the app.

    from ralph_tui import ask

    result = ask("How often are the filters backwashed?", ["manual.pdf"], provider="offline")
    for line in result.answer:
        print(line)
    for quote in result.evidence:
        print(quote.label, quote.quote)

Settings are keywords named as the settings are (``max_iters=2``, ``top_k=3``: the
settings reference lists them), or a ``Settings``. The environment is read (keys come from
it); a ``.env`` file only when ``env_file`` names one. Traces go to ``out_dir``, or to a
temporary folder that is removed afterwards unless ``keep=True``. Bad input raises the
project's errors (``InputError``, ``SettingsError``: both ``UsageError``); a run that ends,
however it ends, returns a ``RunResult`` with its status.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ralph_tui.config import Settings, load_settings, with_values
from ralph_tui.documents import InputError
from ralph_tui.events import Emit, RunStatus
from ralph_tui.loops.requests import Mode, RunRequest
from ralph_tui.loops.runner import RunOutcome, execute_run
from ralph_tui.traces.models import JudgeResult
from ralph_tui.traces.session_ids import session_dir
from ralph_tui.traces.store import TraceStore

PathLike = str | os.PathLike[str]


class Evidence(BaseModel):
    """One evidence quote and where it stands."""

    quote: str
    document: str | None = None
    """The document's name (or, for an external page, its URL); ``None`` if not found."""
    page: int | None = None
    """The page of a PDF, else ``None``."""
    start: int | None = None
    """Where the quote starts in the run's text (all documents, one after another)."""
    end: int | None = None
    url: str | None = None
    """The external page the quote comes from, if it does."""
    label: str | None = None
    """How a person names the place: ``manual.pdf p. 12``, or the URL."""


class Usage(BaseModel):
    input_tokens: int
    output_tokens: int
    calls: int
    cost_usd: float | None
    """``None`` when no call had a known price."""


class RunResult(BaseModel):
    """How a run ended, with its output and the evidence for it."""

    status: RunStatus
    session_id: str
    folder: Path | None
    """The session's folder (``None`` when its temporary out dir was removed)."""
    iterations: int
    output: dict[str, Any] | None
    answer: list[str] = Field(default_factory=list)
    """QA: the answer lines, without their bullets."""
    evidence: list[Evidence] = Field(default_factory=list)
    judge: JudgeResult | None = None
    """The judge's verdict on the last iteration, if it gave one."""
    usage: Usage
    error: str | None = None
    salvaged: bool = False
    """The output was extracted after the worker ran out of steps: never a pass."""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


async def aask(
    question: str,
    docs: PathLike | Sequence[PathLike],
    **options: Any,
) -> RunResult:
    """Answer ``question`` from ``docs`` (files, folders or globs) with evidence quotes.
    See ``arun`` for the options."""
    return await arun("qa", question, docs, **options)


async def arun_task(
    task: str,
    docs: PathLike | Sequence[PathLike],
    *,
    decompose: bool = False,
    **options: Any,
) -> RunResult:
    """Carry out ``task`` over ``docs``; ``decompose`` splits it into sub-tasks first.
    See ``arun`` for the options."""
    return await arun("task", task, docs, decompose=decompose, **options)


def ask(question: str, docs: PathLike | Sequence[PathLike], **options: Any) -> RunResult:
    """``aask``, for code that is not async."""
    return asyncio.run(aask(question, docs, **options))


def run_task(task: str, docs: PathLike | Sequence[PathLike], **options: Any) -> RunResult:
    """``arun_task``, for code that is not async."""
    return asyncio.run(arun_task(task, docs, **options))


async def arun(
    mode: Mode,
    query: str,
    docs: PathLike | Sequence[PathLike],
    *,
    urls: Sequence[str] = (),
    constraints: Sequence[str] = (),
    decompose: bool = False,
    settings: Settings | None = None,
    env_file: PathLike | None = None,
    out_dir: PathLike | None = None,
    keep: bool = False,
    on_event: Emit | None = None,
    cancel: asyncio.Event | None = None,
    **options: Any,
) -> RunResult:
    """Run one session and return how it ended.

    ``urls``: external documentation to crawl and search beside ``docs``. ``settings``: the
    settings to start from (else the environment, and ``env_file`` if given); ``options``
    override them by setting name. ``on_event`` gets every typed event of the run;
    setting ``cancel`` stops it (the result's status is then ``cancelled``).
    """
    specs = [Path(docs)] if isinstance(docs, str | os.PathLike) else [Path(d) for d in docs]
    if not specs:
        raise InputError("no documents: give at least one file, folder or glob")
    temporary = out_dir is None
    out = Path(tempfile.mkdtemp(prefix="ralph-tui-")) if temporary else Path(out_dir)  # type: ignore[arg-type]
    values = {**options, "out_dir": out}
    if urls:
        values["external_docs"] = ",".join(urls)
    try:
        run_settings = _settings(settings, values, env_file)
        request = RunRequest(
            mode=mode,
            query=query,
            doc_path=specs[0],
            more_docs=specs[1:],
            settings=run_settings,
            decompose=decompose,
            constraints=list(constraints),
        )
        outcome = await execute_run(request, on_event=on_event or _ignore, cancel=cancel)
        return _result(outcome, out, kept=keep or not temporary)
    finally:
        if temporary and not keep:
            shutil.rmtree(out, ignore_errors=True)


def _settings(
    settings: Settings | None, values: dict[str, Any], env_file: PathLike | None
) -> Settings:
    if settings is not None:
        return with_values(settings, values, "the caller")
    # A library call reads .env only when asked: an empty file stands for none.
    return load_settings(values, env_file=Path(env_file or os.devnull), writes=True)


def _ignore(_event: object) -> None:
    return None


def _result(outcome: RunOutcome, out: Path, *, kept: bool) -> RunResult:
    store = TraceStore(out)
    try:
        traces = store.iterations(outcome.session_id)
    finally:
        store.close()
    output = outcome.output
    quotes = [str(q) for q in (output or {}).get("evidence") or []]
    sources = outcome.evidence_sources + [None] * (len(quotes) - len(outcome.evidence_sources))
    usage = outcome.usage.to_event()
    return RunResult(
        status=outcome.status,
        session_id=outcome.session_id,
        folder=session_dir(out, outcome.session_id) if kept else None,
        iterations=outcome.iterations,
        output=output,
        answer=_answer_lines(output),
        evidence=[Evidence(quote=q, **(s or {})) for q, s in zip(quotes, sources, strict=True)],
        judge=traces[-1].judge if traces else None,
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            calls=usage.calls,
            cost_usd=usage.cost_usd,
        ),
        error=outcome.error,
        salvaged=outcome.salvaged,
    )


def _answer_lines(output: dict[str, Any] | None) -> list[str]:
    answer = (output or {}).get("answer")
    if not isinstance(answer, str):
        return []
    return [line.strip().removeprefix("- ").strip() for line in answer.splitlines() if line.strip()]
