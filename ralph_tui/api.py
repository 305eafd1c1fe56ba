"""The Python API: ask a question of documents, or carry out a task over them, from a
script or a notebook, with the same loops, traces and typed events as the app.

    from ralph_tui import ask

    result = ask("How often are the filters backwashed?", ["manual.pdf"], provider="offline")
    for line in result.answer:
        print(line)
    for quote in result.evidence:
        print(quote.label, quote.quote)
    for claim in result.claims:
        print(claim.line, claim.verdict, claim.quotes)

Settings are keywords named as the settings are (``max_iters=2``, ``top_k=3``: the
settings reference lists them), or a ``Settings``. The environment is read (keys come from
it); a ``.env`` file only when ``env_file`` names one. Traces go to ``out_dir``, or to a
temporary folder that is removed afterwards unless ``keep=True``. Bad input raises the
project's errors (``InputError``, ``SettingsError``: both ``UsageError``); a run that ends,
however it ends, returns a ``RunResult`` with its status.

Before a run: ``estimate`` says what it is expected to spend, and the most it can, in every
inner mode, without calling a model.

Beside runs: ``search`` finds passages in documents without any LLM, ``sessions`` lists the
sessions of an out dir and ``session`` gives one with its iterations, and ``verify`` checks
that an evidence bundle's quotes still stand in their sources.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, computed_field

from ralph_tui.config import Settings, load_settings, with_values
from ralph_tui.counts import counted
from ralph_tui.documents import Confinement, Corpus, InputError
from ralph_tui.estimates import RunEstimate, estimate_for
from ralph_tui.events import Emit, RunStatus
from ralph_tui.evidence import OCR_MARK, Claim, Coverage, QuoteLocation, answers_absence
from ralph_tui.llm.spend_words import cost_words, tokens_words
from ralph_tui.loops.requests import Mode, RunRequest
from ralph_tui.loops.runner import RunOutcome, execute_run
from ralph_tui.reports.bundle import EvidenceBundle
from ralph_tui.reports.sources import Given
from ralph_tui.reports.verify import VerifyReport, load_bundle, verify_bundle
from ralph_tui.retrieval.retriever import Retrieved
from ralph_tui.retrieval.search import check_query, open_corpus_index, read_searchable, search_index
from ralph_tui.traces.children import ChildTree
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import (
    CacheSaving,
    InnerModeUsed,
    IterationTrace,
    JudgeResult,
    SessionRecord,
)
from ralph_tui.traces.session_ids import session_dir
from ralph_tui.traces.store import TraceStore
from ralph_tui.validate.claims import answer_lines, claim_text
from ralph_tui.validate.locate import describe_location

if TYPE_CHECKING:
    import httpx2

PathLike = str | os.PathLike[str]


class Evidence(QuoteLocation):
    """One evidence quote and where it stands: its document (or external page and when it
    was fetched), page, span in the document's own text (``start``/``end``) and in its page
    (``page_start``/``page_end``), and whether it was found ``exact``, ``near`` or is
    ``missing``. ``quote``, ``document`` and ``label`` name the text, the source and the
    place the way a person reads them."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def quote(self) -> str:
        return self.text

    @computed_field  # type: ignore[prop-decorator]
    @property
    def document(self) -> str | None:
        """The document's name (or, for an external page, its URL); ``None`` if not found."""
        return self.source

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        """How a person names the place: ``manual.pdf p. 12``, the URL, or ``not found``."""
        return super().label

    @computed_field  # type: ignore[prop-decorator]
    @property
    def where(self) -> str:
        """``manual.pdf p. 12, chars 5810-5874``; ``not found``."""
        return describe_location(self)


class Usage(BaseModel):
    """What a run spent, and what the sub-call cache saved it."""

    input_tokens: int
    output_tokens: int
    calls: int
    cost_usd: float | None
    """The known cost: ``None`` when no call had a known price; the cost of the priced calls
    when some had none (``unknown_cost_calls``)."""
    unknown_cost_calls: int = 0
    """Calls whose model had no known price, left out of ``cost_usd``."""
    estimated_calls: int = 0
    """Calls whose server reported no usage: their tokens (and cost) are a tokenizer's
    estimate."""
    subcall_cache_saved: CacheSaving = Field(default_factory=CacheSaving)
    """The sub-calls answered from the cache (not in ``calls``), and the tokens and cost they
    took when first paid for."""

    def describe(self) -> str:
        """``12 calls, 30,000 tokens in / 1,200 out (estimated for 3 of 12 calls), $0.0061 +
        unknown``: as the command line says it."""
        tokens = tokens_words(
            self.input_tokens, self.output_tokens, self.estimated_calls, self.calls
        )
        spent = cost_words(self.cost_usd, self.unknown_cost_calls)
        return f"{counted(self.calls, 'call')}, {tokens}, {spent}"


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
    claims: list[Claim] = Field(default_factory=list)
    """QA: each answer line with the numbers of the evidence quotes that back it (1-based, in
    ``evidence``) and the judge's verdict on it."""
    judge: JudgeResult | None = None
    """The judge's verdict on the last iteration, if it gave one."""
    usage: Usage
    error: str | None = None
    """What stopped the run, when something did: a cap, its timeout, a provider error, or
    (status ``failed``) an iteration that repeated the one before, so that the next would
    have been asked what it was."""
    salvaged: bool = False
    """The output was extracted after the worker ran out of steps: never a pass."""
    coverage: Coverage | None = None
    """What the reported iteration read of the documents, and the searches it made."""
    absence_note: str | None = None
    """For an answer that says the documents do not hold it: what was searched and how much
    was read (``searched the whole text for: saffron, simmer; read 4 % of it``)."""
    notes: list[str] = Field(default_factory=list)
    """What was not read of the documents and why (not a supported document, could not be
    converted, a link leading outside the allowed folders), and pages without text."""
    children: list[ChildTree] = Field(default_factory=list)
    """The child agents the run's agents started (``rlm_query``, with ``max_depth`` 2 or
    more): one tree per agent and iteration, each child with its record and its own."""

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
    within: Sequence[PathLike] | None = None,
    **options: Any,
) -> RunResult:
    """Run one session and return how it ended.

    ``urls``: external documentation to crawl and search beside ``docs``. ``settings``: the
    settings to start from (else the environment, and ``env_file`` if given); ``options``
    override them by setting name. ``on_event`` gets every typed event of the run;
    setting ``cancel`` stops it (the result's status is then ``cancelled``). ``within``:
    the folders every file read must lie in, symbolic links resolved, for ``docs`` given
    by someone not trusted; what leads outside is left out and named in the result's
    ``notes`` (``InputError`` when nothing inside remains).
    """
    specs = _doc_specs(docs)
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
            within=_confinement(within),
        )
        outcome = await execute_run(request, on_event=on_event or _ignore, cancel=cancel)
        return _result(outcome, out, kept=keep or not temporary)
    finally:
        if temporary and not keep:
            shutil.rmtree(out, ignore_errors=True)


async def aestimate(
    mode: Mode,
    query: str,
    docs: PathLike | Sequence[PathLike],
    *,
    constraints: Sequence[str] = (),
    decompose: bool = False,
    settings: Settings | None = None,
    env_file: PathLike | None = None,
    out_dir: PathLike | None = None,
    within: Sequence[PathLike] | None = None,
    **options: Any,
) -> RunEstimate:
    """What a run of ``arun`` with the same arguments is expected to spend, and the most it
    can, in every inner mode (the one the settings pick marked), by role: tokens in and out,
    calls, and dollars (``None``: a price is unknown). No model is called and nothing goes
    on the network; the documents are read for their size. Past sessions of the same run
    mode, inner mode and models under ``out_dir`` (else the ``out_dir`` setting's) calibrate
    the expected figures; each mode's ``basis`` says whether they did."""
    specs = _doc_specs(docs)
    values = {**options, **({"out_dir": Path(out_dir)} if out_dir is not None else {})}
    run_settings = _settings(settings, values, env_file)
    return await asyncio.to_thread(
        estimate_for,
        run_settings,
        mode,
        query,
        specs,
        constraints=constraints,
        decompose=decompose,
        within=_confinement(within),
    )


def estimate(
    mode: Mode, query: str, docs: PathLike | Sequence[PathLike], **options: Any
) -> RunEstimate:
    """``aestimate``, for code that is not async."""
    return asyncio.run(aestimate(mode, query, docs, **options))


def _settings(
    settings: Settings | None, values: dict[str, Any], env_file: PathLike | None
) -> Settings:
    if settings is not None:
        return with_values(settings, values, "the caller")
    # A library call reads .env only when asked: an empty file stands for none.
    return load_settings(values, env_file=Path(env_file or os.devnull), writes=True)


def _ignore(_event: object) -> None:
    return None


def _confinement(within: Sequence[PathLike] | None) -> Confinement | None:
    if within is None:
        return None
    if isinstance(within, str | os.PathLike):
        raise TypeError("within is a list of folders")
    return Confinement.of(within)


def _doc_specs(docs: PathLike | Sequence[PathLike]) -> list[Path]:
    specs = [Path(docs)] if isinstance(docs, str | os.PathLike) else [Path(d) for d in docs]
    if not specs:
        raise InputError("no documents: give at least one file, folder or glob")
    return specs


def _evidence(locations: Sequence[QuoteLocation]) -> list[Evidence]:
    """Each located quote as the API gives it."""
    return [Evidence.model_validate(location.model_dump()) for location in locations]


def _result(outcome: RunOutcome, out: Path, *, kept: bool) -> RunResult:
    store = TraceStore(out)
    try:
        traces = store.iterations(outcome.session_id)
        children = store.children(outcome.session_id)
    finally:
        store.close()
    output = outcome.output
    usage = outcome.usage.to_event()
    return RunResult(
        status=outcome.status,
        session_id=outcome.session_id,
        folder=session_dir(out, outcome.session_id) if kept else None,
        iterations=outcome.iterations,
        output=output,
        answer=_answer_lines(output),
        evidence=_evidence(outcome.quotes),
        claims=outcome.claims,
        judge=traces[-1].judge if traces else None,
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            calls=usage.calls,
            cost_usd=usage.cost_usd,
            unknown_cost_calls=usage.unknown_cost_calls,
            estimated_calls=usage.estimated_calls,
            subcall_cache_saved=CacheSaving.of(outcome.usage),
        ),
        error=outcome.error,
        salvaged=outcome.salvaged,
        coverage=outcome.coverage,
        absence_note=_absence_note(outcome),
        notes=outcome.notes,
        children=children,
    )


def _absence_note(outcome: RunOutcome) -> str | None:
    if outcome.coverage is None or not answers_absence(outcome.output):
        return None
    return outcome.coverage.describe()


def _answer_lines(output: dict[str, Any] | None) -> list[str]:
    answer = (output or {}).get("answer")
    if not isinstance(answer, str):
        return []
    return [claim_text(line.strip()) for line in answer_lines(answer)]


class Passage(BaseModel):
    """One passage a search found, and where it comes from."""

    text: str
    label: str
    """How a person names the place: ``manual.pdf p. 12``, or the URL."""
    document: str | None = None
    page: int | None = None
    """The page it is labelled with: the one holding most of its text."""
    pages: list[int] = Field(default_factory=list)
    """Every page it spans, in order (``[53, 54]`` for a passage over a page break)."""
    ocr: bool = False
    """Whether OCR read any of its text (a scanned page, an image): its figures may be
    misread."""
    start: int | None = None
    """Where the passage starts in the documents' text (all of them, one after another)."""
    end: int | None = None
    url: str | None = None
    ranks: dict[str, int] = Field(default_factory=dict)
    """Its rank in each leg of the search (``lexical``, ``dense``)."""
    scores: dict[str, float] = Field(default_factory=dict)


class SearchResult(BaseModel):
    """The passages that best match a query, best first."""

    query: str
    passages: list[Passage]
    notes: list[str] = Field(default_factory=list)
    """What was not read of the documents and why, as a run's result says it."""


async def asearch(
    query: str,
    docs: PathLike | Sequence[PathLike],
    *,
    settings: Settings | None = None,
    env_file: PathLike | None = None,
    out_dir: PathLike | None = None,
    within: Sequence[PathLike] | None = None,
    **options: Any,
) -> SearchResult:
    """The passages of ``docs`` that best match ``query``, without any LLM (unless the
    embedder is the OpenAI API). The index is cached under ``out_dir`` (else a temporary
    folder, removed afterwards); ``options`` are settings by name (``top_k=3``);
    ``within`` confines the files read as ``arun``'s does."""
    check_query(query)
    specs = _doc_specs(docs)
    confinement = _confinement(within)
    with _out_folder(out_dir) as out:
        run_settings = _settings(settings, {**options, "out_dir": out}, env_file)
        corpus = read_searchable(specs, run_settings, confinement)
        index = await open_corpus_index(corpus, run_settings)
        result = await search_index(index, corpus, run_settings, query)
    passages = [_passage(p, corpus) for p in result.passages]
    return SearchResult(query=query, passages=passages, notes=corpus.notices())


def _passage(found: Retrieved, corpus: Corpus) -> Passage:
    """A found passage with the document its span lies in and the pages it spans (labelled
    with the page holding most of its text)."""
    info = found.info
    source = corpus.source_of(info.span[0]) if info.span else None
    document = source.document if source else info.document
    label = info.label
    if source is not None:
        label = f"{document} {info.page_label}" if info.page else str(document)
        if info.ocr:
            label += f" {OCR_MARK}"
    return Passage(
        text=info.text,
        label=label,
        document=document,
        page=info.page if info.page else (source.page if source else None),
        pages=info.pages,
        ocr=info.ocr,
        start=info.span[0] if info.span else None,
        end=info.span[1] if info.span else None,
        url=info.url,
        ranks=found.ranks,
        scores=found.scores,
    )


def search(query: str, docs: PathLike | Sequence[PathLike], **options: Any) -> SearchResult:
    """``asearch``, for code that is not async."""
    return asyncio.run(asearch(query, docs, **options))


@contextlib.contextmanager
def _out_folder(out_dir: PathLike | None) -> Iterator[Path]:
    """``out_dir``, or a temporary folder removed on the way out."""
    if out_dir is not None:
        yield Path(out_dir)
        return
    folder = Path(tempfile.mkdtemp(prefix="ralph-tui-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class SessionSummary(BaseModel):
    """One recorded session, as a list shows it."""

    session_id: str
    created_at: datetime
    mode: str
    status: RunStatus
    """``crashed`` for a session still marked running whose process is gone."""
    query: str
    document: str
    iterations: int
    duration_s: float | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    unknown_cost_calls: int = 0
    """Calls whose model had no known price, left out of ``cost_usd``."""
    estimated_calls: int = 0
    """Calls whose tokens are a tokenizer's estimate (their server reported no usage)."""
    subcall_cache_saved: CacheSaving = Field(default_factory=CacheSaving)
    """What the sub-call cache saved the session (not in the tokens and cost above)."""
    parent_session_id: str | None = None
    error: str | None = None
    inner: InnerModeUsed | None = None
    """The inner mode the session explored in and why (``None``: an older session)."""

    @classmethod
    def of(cls, record: SessionRecord) -> SessionSummary:
        return cls(
            session_id=record.session_id,
            created_at=datetime.fromtimestamp(record.created_at, UTC),
            mode=record.mode,
            status=effective_status(record),
            query=record.query,
            document=record.doc_path,
            iterations=record.iterations,
            duration_s=None if record.duration_ms is None else round(record.duration_ms / 1000, 1),
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            cost_usd=record.cost_usd,
            unknown_cost_calls=record.unknown_cost_calls,
            estimated_calls=record.estimated_calls,
            subcall_cache_saved=record.subcall_cache_saved,
            parent_session_id=record.parent_session_id,
            error=record.error,
            inner=record.inner,
        )


class SessionDetail(SessionSummary):
    """One session with every iteration's trace, and the last output with its evidence."""

    output: dict[str, Any] | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    """QA: the last output's lines with their quotes and verdicts."""
    iteration_traces: list[IterationTrace] = Field(default_factory=list)
    children: list[ChildTree] = Field(default_factory=list)
    """The child agents its agents started (``rlm_query``), as trees."""


def sessions(
    out_dir: PathLike | None = None,
    *,
    mode: Mode | None = None,
    status: RunStatus | None = None,
    text: str | None = None,
    limit: int = 20,
) -> list[SessionSummary]:
    """The sessions in ``out_dir`` (else the ``out_dir`` setting's), newest first, with
    ``text`` among the words of their query or output if given."""
    out = _sessions_out(out_dir)
    if not (out / "sessions").is_dir():
        return []
    store = TraceStore(out)
    try:
        records = store.index.list_sessions(mode=mode, status=status, text=text, limit=limit)
    finally:
        store.close()
    return [SessionSummary.of(record) for record in records]


def session(session_id: str, out_dir: PathLike | None = None) -> SessionDetail:
    """The session ``session_id`` names (its whole id or a unique end of it, as
    ``ralph-tui sessions show`` takes it) in ``out_dir`` (else the ``out_dir`` setting's), with
    its iterations; ``UnknownSessionError`` or ``AmbiguousSessionError`` otherwise."""
    store = TraceStore(_sessions_out(out_dir))
    try:
        found = store.find_session(session_id)
        record = store.load_session(found)
        traces = store.iterations(found)
        children = store.children(found)
    finally:
        store.close()
    output = traces[-1].output if traces else None
    return SessionDetail(
        **SessionSummary.of(record).model_dump(),
        output=output,
        evidence=_evidence(traces[-1].quotes if traces else []),
        claims=traces[-1].claims if traces else [],
        iteration_traces=traces,
        children=children,
    )


def _sessions_out(out_dir: PathLike | None) -> Path:
    if out_dir is not None:
        return Path(out_dir)
    return load_settings({}, env_file=Path(os.devnull)).out_dir


async def averify(
    bundle: PathLike,
    *,
    docs: Sequence[PathLike] = (),
    offline: bool = False,
    trust_paths: bool = False,
    loaded: EvidenceBundle | None = None,
    settings: Settings | None = None,
    env_file: PathLike | None = None,
    http_client: httpx2.AsyncClient | None = None,
    **options: Any,
) -> VerifyReport:
    """Whether the quotes of the evidence bundle ``bundle`` still stand in their sources.

    Each source file is read again with the same conversion, from where ``docs`` puts it
    (matched by name, then by SHA-256), else from the path the bundle saved when that is
    inside the bundle's folder or the working folder (anywhere with ``trust_paths``), else
    by its name in one of those folders; a special file (``/proc``, a FIFO) never; each external
    page is fetched anew through ``http_client`` (or a client of its own), unless
    ``offline``: then its quotes are "not checked". ``options`` are settings by name
    (``out_dir``: where the extraction cache is); ``loaded``: the bundle already read by
    ``load_bundle``. Bad input (an unreadable bundle, another
    bundle version, a path in ``docs`` that does not exist) raises ``InputError`` before
    anything is read.
    """
    path = Path(bundle)
    loaded = loaded or load_bundle(path)
    given = Given.of([Path(doc) for doc in docs])
    run_settings = _settings(settings, options, env_file)
    return await verify_bundle(
        loaded,
        path,
        given,
        run_settings,
        offline=offline,
        trust_paths=trust_paths,
        client=http_client,
    )


def verify(bundle: PathLike, **options: Any) -> VerifyReport:
    """``averify``, for code that is not async."""
    return asyncio.run(averify(bundle, **options))
