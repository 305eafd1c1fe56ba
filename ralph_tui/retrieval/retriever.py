"""Two-stage search over every source: BM25 (chunks and pages), table-row (``rows``) and
dense legs, which search the query with a report's words for a reader's (``thesaurus``), fused
by reciprocal rank
(exact phrases first, then the passages holding the query's rare terms, a weight per
source kind), then an optional MaxSim rerank that keeps that precedence; last, a paragraph
found on several pages is shown once, by its copy on the page the page leg ranks best
(``copies_once``), and each page's first passage comes before any page's second
(``pages_first``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ralph_tui.errors import UsageError
from ralph_tui.evidence import OCR_MARK
from ralph_tui.llm.errors import LLMError
from ralph_tui.retrieval.copies import copies_once
from ralph_tui.retrieval.embedders import Embedder
from ralph_tui.retrieval.fusion import exact_phrases, holds_phrase, rrf
from ralph_tui.retrieval.rerank import maxsim
from ralph_tui.retrieval.sources import SOURCE_KINDS, PassageInfo, PassageSource, SourceKind
from ralph_tui.thesaurus import reader_terms, widened

RerankMode = Literal["auto", "on", "off"]

DEFAULT_WEIGHTS: dict[SourceKind, float] = {"doc": 1.0, "episode": 0.5, "external": 0.3}


class RetrievalError(UsageError):
    """A search that cannot be run as asked (empty query, ``k`` out of range)."""

    title = "Cannot search"


@dataclass(frozen=True)
class SearchOptions:
    top_n: int = 15
    top_k: int = 5
    rerank: RerankMode = "auto"
    weights: dict[SourceKind, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    kind_top_n: dict[SourceKind, int] = field(default_factory=dict)
    """Candidates per leg for a source kind, where not ``top_n`` (external docs)."""
    kind_top_k: dict[SourceKind, int] = field(default_factory=dict)
    """Passages of a kind selected at most (external docs)."""

    def __post_init__(self) -> None:
        if self.top_n <= 0 or self.top_k <= 0:
            raise RetrievalError(f"topN and topK must be positive (got {self.top_n}, {self.top_k})")
        if self.top_k > self.top_n:
            raise RetrievalError(
                f"topK ({self.top_k}) cannot exceed topN ({self.top_n}): stage 2 picks topK "
                "of the topN candidates each leg finds"
            )


@dataclass
class Retrieved:
    """One selected passage with its ranks and scores in each stage."""

    info: PassageInfo
    ranks: dict[str, int]
    scores: dict[str, float]
    phrase: bool
    rare_terms: int = 0
    """The query's rare terms it holds (see ``lexical.RARE_SHARE``)."""

    def to_json(self, preview: int | None = None) -> dict[str, Any]:
        text = self.info.text if preview is None else self.info.text[:preview]
        return {
            "id": self.info.key,
            "source": self.info.kind,
            "chunk": self.info.chunk,
            "label": self.info.label,
            "text": text,
            "span": list(self.info.span) if self.info.span else None,
            "url": self.info.url,
            "document": self.info.document,
            "page": self.info.page,
            "pages": self.info.pages,
            "ocr": self.info.ocr,
            "ranks": self.ranks,
            "scores": {k: round(v, 6) for k, v in self.scores.items()},
            "exactPhrase": self.phrase,
            "rareTerms": self.rare_terms,
            **({"node": self.info.extra["node"]} if "node" in self.info.extra else {}),
        }


@dataclass
class RetrievalResult:
    passages: list[Retrieved]
    diagnostics: dict[str, Any]

    def context_text(self) -> str:
        """The passages as the DocReader's ``retrievedContext``: each under its label,
        marked when OCR read its text."""
        return "\n\n".join(
            f"{p.info.label}{f' {OCR_MARK}' if p.info.ocr else ''}\n{p.info.text}"
            for p in self.passages
        )


Notice = Callable[[str], None]
LEGS = ("lexical", "page", "row", "dense")
"""Stage 1's legs, in the order a passage's ranks in them are shown."""


@dataclass
class _Candidates:
    """Stage 1's candidates: each leg's ranking per source kind, and for each candidate
    where it comes from, its rank and score in each leg and the query's rare terms it
    holds."""

    rankings: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: {leg: {} for leg in LEGS}
    )
    infos: dict[str, PassageInfo] = field(default_factory=dict)
    ranks: dict[str, dict[str, int]] = field(default_factory=dict)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    rare: dict[str, int] = field(default_factory=dict)
    rare_of: dict[str, np.ndarray] = field(default_factory=dict)
    """Per source kind, the rare terms each of its passages holds."""

    def add(self, leg: str, source: PassageSource, picked: np.ndarray, values: np.ndarray) -> None:
        keys = []
        rare = self.rare_of.get(source.kind)
        for rank, (index, value) in enumerate(
            zip(picked.tolist(), values.tolist(), strict=True), 1
        ):
            info = source.info(int(index))
            key = info.key
            self.infos[key] = info
            self.ranks.setdefault(key, {})[leg] = rank
            self.scores.setdefault(key, {})[leg] = float(value)
            self.rare[key] = int(rare[index]) if rare is not None else 0
            keys.append(key)
        self.rankings[leg][source.kind] = keys

    def page_ranks(self) -> dict[str, int]:
        """Each candidate's page's rank in the page leg (the rank of the passage it
        nominated for that page), for the candidates on a page it ranked."""
        of_page: dict[tuple[str, str | None, int], int] = {}
        for key, ranks in self.ranks.items():
            if "page" in ranks and (where := _page_of(self.infos[key])) is not None:
                of_page[where] = min(ranks["page"], of_page.get(where, ranks["page"]))
        return {
            key: of_page[where]
            for key, info in self.infos.items()
            if (where := _page_of(info)) is not None and where in of_page
        }


class Retriever:
    """Searches ``sources`` for a query; says once, through ``on_notice``, when a leg or
    stage cannot run and why."""

    def __init__(
        self,
        sources: Sequence[PassageSource],
        embedder: Embedder | None,
        options: SearchOptions | None = None,
        on_notice: Notice | None = None,
        index_figures: dict[str, Any] | None = None,
    ) -> None:
        self.sources = list(sources)
        self.embedder = embedder
        self.options = options or SearchOptions()
        self._notice = on_notice or (lambda _m: None)
        self.index_figures = index_figures or {}
        self._told: set[str] = set()
        if self.index_figures.get("denseSkipped"):
            # Building the index already said why the dense leg is missing.
            self._told.add("dense-none")

    def replace_source(self, source: PassageSource) -> None:
        """Swap in ``source`` for the one of its kind (episodes grow between iterations)."""
        self.sources = [s for s in self.sources if s.kind != source.kind] + [source]

    async def search(
        self, query: str, k: int | None = None, kinds: Sequence[str] | None = None
    ) -> RetrievalResult:
        query = " ".join(str(query).split())
        if not query:
            raise RetrievalError("the query is empty: say what to look for")
        k = self.options.top_k if k is None else int(k)
        if k <= 0:
            raise RetrievalError(f"k must be positive, not {k}")
        wanted = _kinds(kinds)
        sources = [s for s in self.sources if s.kind in wanted and len(s)]
        started = time.perf_counter()
        ms: dict[str, float] = {}
        skipped: dict[str, str] = {}
        found = _Candidates()
        n = max(self.options.top_n, k)

        t = time.perf_counter()
        readers = reader_terms(query)
        searched = widened(query, readers)
        allowed: dict[str, np.ndarray | None] = {}
        named: list[str] = []
        for source in sources:
            allowed[source.kind], names = source.named(query)
            named += names
            hits = source.lexical.search(searched) if source.lexical is not None else None
            if hits is not None:
                hits = hits.within(allowed[source.kind])
                found.rare_of[source.kind] = hits.rare
                picked = hits.top(self._top_n(source.kind, n))
                found.add("lexical", source, picked, hits.scores[picked])
            else:
                found.rankings["lexical"][source.kind] = []
            chunk_scores = hits.scores if hits is not None else None
            if source.pages is not None:
                picked, page_scores = source.pages.nominate(
                    searched, chunk_scores, self._top_n(source.kind, n), allowed[source.kind]
                )
                found.add("page", source, picked, page_scores)
            if source.rows is not None:
                picked, sizes = source.rows.nominate(
                    query, chunk_scores, self._top_n(source.kind, n), allowed[source.kind]
                )
                found.add("row", source, picked, sizes)
        ms["lexical"] = _since(t)

        query_vector = await self._query_vector(searched, sources, skipped, ms)
        if query_vector is not None:
            t = time.perf_counter()
            for source in sources:
                if source.store is None or source.embedder_id != self.embedder_id:
                    continue
                if source.store.dim != len(query_vector):
                    skipped["dense"] = (
                        f"{source.kind} vectors have {source.store.dim} dimensions, the query "
                        f"{len(query_vector)}: rebuild the index (ralph-tui index --rebuild)"
                    )
                    continue
                picked, cosines = source.store.search(
                    query_vector, self._top_n(source.kind, n), allowed.get(source.kind)
                )
                found.add("dense", source, picked, cosines)
            ms["dense"] = _since(t)

        t = time.perf_counter()
        infos, scores = found.infos, found.scores
        weights = {key: self.options.weights.get(info.kind, 1.0) for key, info in infos.items()}
        lists = [lst for leg in found.rankings.values() for lst in leg.values()]
        fused = rrf(lists, weights)
        phrases = exact_phrases(query)
        phrase = {key: holds_phrase(infos[key].text, phrases) for key in fused}
        first = {key: (not phrase[key], -found.rare[key]) for key in fused}
        order = sorted(fused, key=lambda key: (first[key], -fused[key]))
        for key in order:
            scores[key]["fused"] = fused[key]
        ms["fusion"] = _since(t)

        order = self._rerank(searched, order, infos, first, weights, scores, skipped, ms)
        order, copies = copies_once(order, infos, found.page_ranks())
        order = pages_first(order, infos, first, copies)
        chosen = self._select(order, infos, k)
        for position, key in enumerate(order, 1):
            found.ranks[key]["final"] = position
        passages = [
            Retrieved(infos[key], found.ranks[key], scores[key], phrase[key], found.rare[key])
            for key in chosen
        ]
        ms["total"] = _since(started)
        diagnostics = {
            "query": query,
            "k": k,
            "topN": n,
            "sources": sorted(wanted),
            "embedder": self.embedder_id,
            "candidates": {
                leg: {kind: len(found) for kind, found in by_kind.items()}
                for leg, by_kind in found.rankings.items()
            },
            "fused": len(fused),
            "namedDocuments": named,
            "readerTerms": readers,
            "exactPhrases": phrases,
            "selected": [
                {key: value for key, value in p.to_json().items() if key != "text"}
                for p in passages
            ],
            "ms": {name: round(value, 2) for name, value in ms.items()},
            "skipped": skipped,
            "index": self.index_figures,
        }
        return RetrievalResult(passages, diagnostics)

    def _top_n(self, kind: SourceKind, n: int) -> int:
        return self.options.kind_top_n.get(kind, n)

    def _select(self, order: list[str], infos: dict[str, PassageInfo], k: int) -> list[str]:
        """The first ``k`` of ``order``, each kind kept to its own cap."""
        caps = self.options.kind_top_k
        taken: dict[str, int] = {}
        chosen = []
        for key in order:
            kind = infos[key].kind
            if taken.get(kind, 0) >= caps.get(kind, k):
                continue
            taken[kind] = taken.get(kind, 0) + 1
            chosen.append(key)
            if len(chosen) == k:
                break
        return chosen

    @property
    def embedder_id(self) -> str | None:
        return self.embedder.id if self.embedder is not None else None

    async def _query_vector(
        self,
        query: str,
        sources: list[PassageSource],
        skipped: dict[str, str],
        ms: dict[str, float],
    ) -> np.ndarray | None:
        if self.embedder is None:
            skipped["dense"] = "no embedder (lexical leg alone)"
            return None
        if not sources:
            skipped["dense"] = "no passages of the sources asked for"
            return None
        if not any(s.store is not None and s.embedder_id == self.embedder_id for s in sources):
            skipped["dense"] = "no source has vectors of this embedder (lexical leg alone)"
            self._tell_once("dense-none", f"retrieval: {skipped['dense']}")
            return None
        t = time.perf_counter()
        try:
            vectors = await self.embedder.embed([query])
        except LLMError as exc:
            skipped["dense"] = f"the embedder {self.embedder_id} failed: {exc}"
            self._tell_once("dense-failed", f"retrieval: {skipped['dense']}; lexical leg alone")
            return None
        ms["embedQuery"] = _since(t)
        return np.asarray(vectors[0], dtype=np.float32)

    def _rerank(
        self,
        query: str,
        order: list[str],
        infos: dict[str, PassageInfo],
        first: dict[str, tuple[bool, int]],
        weights: dict[str, float],
        scores: dict[str, dict[str, float]],
        skipped: dict[str, str],
        ms: dict[str, float],
    ) -> list[str]:
        word_vectors = self.embedder.word_vectors if self.embedder is not None else None
        if self.options.rerank == "off":
            skipped["rerank"] = "turned off (--rerank off)"
            return order
        if word_vectors is None:
            reason = f"the embedder {self.embedder_id or '(none)'} gives no token vectors"
            skipped["rerank"] = reason
            if self.options.rerank == "on":
                self._tell_once("rerank", f"retrieval: MaxSim rerank asked for, but {reason}")
            return order
        t = time.perf_counter()
        weights_of = self.embedder.word_weights if self.embedder is not None else None
        values = maxsim(query, [infos[key].text for key in order], word_vectors, weights_of)
        for key, value in zip(order, values, strict=True):
            scores[key]["maxsim"] = value
        by_maxsim = sorted(order, key=lambda key: -scores[key]["maxsim"] * weights.get(key, 1.0))
        votes = rrf([by_maxsim], {})
        for key in order:
            scores[key]["reranked"] = scores[key]["fused"] + votes[key]
        reranked = sorted(
            order,
            key=lambda key: (first[key], -scores[key]["reranked"], by_maxsim.index(key)),
        )
        ms["rerank"] = _since(t)
        return reranked

    def _tell_once(self, topic: str, message: str) -> None:
        if topic not in self._told:
            self._told.add(topic)
            self._notice(message)


def _page_of(info: PassageInfo) -> tuple[str, str | None, int] | None:
    """Which page of which source a passage is on (``None`` for one without a page)."""
    return (info.kind, info.document or info.url, info.page) if info.page else None


def pages_first(
    order: list[str],
    infos: dict[str, PassageInfo],
    first: dict[str, tuple[bool, int]],
    copies: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """``order`` with each page's first passage before any page's second, within each rank
    of precedence (``first``: exact phrases, then rare terms), so a page already represented
    does not take a place another page could have; and the ``copies`` of a paragraph shown
    already (``copies_once``) after all, as they add nothing to it. Passages without a page
    keep their place. On the filings benchmark four passages of one page filled four of the top
    five places where the page that answers was sixth; pages first found the evidence page
    in the top five for one question more, and for fewer in no scope."""
    seen: set[tuple[str, str | None, int]] = set()
    repeat: dict[str, bool] = {}
    for key in order:
        where = _page_of(infos[key])
        repeat[key] = where is not None and where in seen
        if where is not None and key not in copies:
            seen.add(where)
    return sorted(order, key=lambda key: (key in copies, first[key], repeat[key]))


def _kinds(kinds: Sequence[str] | str | None) -> set[str]:
    if kinds is None:
        return set(SOURCE_KINDS)
    chosen = {kinds} if isinstance(kinds, str) else {str(k) for k in kinds}
    unknown = chosen - set(SOURCE_KINDS)
    if unknown:
        raise RetrievalError(
            f"unknown source {sorted(unknown)[0]!r}: sources are {', '.join(SOURCE_KINDS)}"
        )
    return chosen


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
