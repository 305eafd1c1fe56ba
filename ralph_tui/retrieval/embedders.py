"""Embedders: text → unit vectors, behind one interface.

- ``WordVectorEmbedder``: WordLlama's token codebook (shipped inside its wheel, so no key and
  no download). A word's vector is the mean of its sub-word token vectors; a text's is the
  sum of its words' vectors weighted by each word's rarity in the document (IDF), so names
  and terms count and filler does not. It also gives per-word vectors and weights, which
  the MaxSim rerank needs.
- ``APIEmbedder``: an OpenAI(-compatible) embeddings endpoint through a metered client:
  batched, retried, counted in the usage ledger and the cost cap. No per-token vectors.

Vectors of two embedders never meet: ``id`` (name, model, dimension) keys every index.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ralph_tui.words import folded_words

OnProgress = Callable[[int, int], None]
"""Texts embedded so far, texts in all."""

POOL_BLOCK_TOKENS = 512
"""Word vectors gathered at once when pooling chunks: a block small enough to stay in the
CPU cache pools several times faster than a large one (measured: 512 rows 0.6 s, 262,144
rows 4.5 s for 1.4 M words)."""


class Embedder(Protocol):
    @property
    def id(self) -> str:
        """Name, model and dimension: vectors of two ids never meet in one index."""

    @property
    def word_vectors(self) -> Callable[[Sequence[str]], np.ndarray] | None:
        """Unit vectors of words (for MaxSim), or ``None`` when the embedder has none."""

    @property
    def word_weights(self) -> Callable[[Sequence[str]], np.ndarray] | None:
        """Weights of words (for MaxSim), or ``None``: all alike."""

    async def embed(
        self, texts: Sequence[str], on_progress: OnProgress | None = None
    ) -> np.ndarray:
        """One unit vector (float32 row) per text."""
        ...


def normalized(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; an all-zero row stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


@cache
def _wordllama() -> Any:
    """The WordLlama model bundled in its wheel, loaded from the package folder: its own
    ``load()`` looks for the tokenizer elsewhere and would try to download it.

    Importing wordllama calls ``logging.basicConfig(level=INFO)``: every library's INFO
    records (each HTTP request the SDKs make) would then go to stderr, over the app's
    screen. The root logger is put back as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    import wordllama

    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)

    folder = Path(wordllama.__file__).parent
    return wordllama.WordLlama.load(cache_dir=folder, disable_download=True)


@cache
def _word_tokenizer() -> Any:
    """WordLlama's tokenizer without padding (the model pads batches to their longest text;
    words are encoded one by one), made once and shared: encoding is thread-safe, and each
    tokenizer made anew keeps most of a megabyte the process never gets back once it has
    encoded a document's words (measured), which one per index grew a long-lived MCP server
    by on every run."""
    tokenizer = _wordllama().tokenizer
    words = type(tokenizer).from_str(tokenizer.to_str())
    words.no_padding()
    return words


class WordVectorEmbedder:
    """Mean word vectors from WordLlama's codebook (256 dimensions)."""

    def __init__(self) -> None:
        model = _wordllama()
        self._codebook: np.ndarray = model.embedding
        self._tokenizer = _word_tokenizer()
        self.dim = int(self._codebook.shape[1])
        self.id = f"wordllama-l2-supercat-{self.dim}-idf"
        self._cache: dict[str, np.ndarray] = {}
        self.word_vectors = self._unit_word_vectors
        self._weights: dict[str, float] = {}
        self._unseen_weight = 1.0
        self.word_weights = self.weights_of

    def weigh(self, words: Sequence[str], weights: np.ndarray) -> None:
        """Use the document's word weights (IDF); a word it lacks weighs as its rarest."""
        self._weights = dict(zip(words, weights.tolist(), strict=True))
        self._unseen_weight = float(weights.max()) if len(weights) else 1.0

    def weights_of(self, words: Sequence[str]) -> np.ndarray:
        unseen = self._unseen_weight
        return np.array([self._weights.get(w, unseen) for w in words], dtype=np.float32)

    def vocabulary_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Each word's vector (the mean of its tokens' codebook rows), not normalised."""
        if not words:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(words), add_special_tokens=False)
        ids = [encoding.ids or [0] for encoding in encodings]
        lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((t for i in ids for t in i), dtype=np.int64, count=int(lengths.sum()))
        return pool(self._codebook, flat, lengths) / lengths[:, None].astype(np.float32)

    def _unit_word_vectors(self, words: Sequence[str]) -> np.ndarray:
        missing = [w for w in dict.fromkeys(words) if w not in self._cache]
        if missing:
            for word, vector in zip(
                missing, normalized(self.vocabulary_vectors(missing)), strict=True
            ):
                self._cache[word] = vector
        if not words:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[w] for w in words])

    def embed_word_ids(
        self, word_vectors: np.ndarray, flat_ids: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """Unit vectors of texts given as word ids into ``word_vectors`` (rows already
        weighted): the fast path for a whole document, tokenized once for both legs."""
        return normalized(pool(word_vectors, flat_ids, lengths))

    async def embed(
        self, texts: Sequence[str], on_progress: OnProgress | None = None
    ) -> np.ndarray:
        words = [folded_words(text) for text in texts]
        vocabulary = list(dict.fromkeys(w for text_words in words for w in text_words))
        index = {word: i for i, word in enumerate(vocabulary)}
        vectors = self.vocabulary_vectors(vocabulary) * self.weights_of(vocabulary)[:, None]
        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
        flat = np.fromiter(
            (index[w] for text_words in words for w in text_words),
            dtype=np.int64,
            count=int(lengths.sum()),
        )
        result = self.embed_word_ids(vectors, flat, lengths)
        if on_progress is not None:
            on_progress(len(texts), len(texts))
        return result


def pool(vectors: np.ndarray, flat_ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per text, the sum of ``vectors[id]`` over its ids (texts laid end to end in
    ``flat_ids``, ``lengths`` ids each); a text with no ids sums to zero."""
    out = np.zeros((len(lengths), vectors.shape[1]), dtype=np.float32)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    text = 0
    while text < len(lengths):
        # As many whole texts as fit in one block of gathered rows.
        limit = starts[text] + POOL_BLOCK_TOKENS
        last = max(text + 1, int(np.searchsorted(ends, limit, side="right")))
        block = slice(int(starts[text]), int(ends[last - 1]))
        rows = vectors[flat_ids[block]]
        offsets = starts[text:last] - starts[text]
        filled = lengths[text:last] > 0
        if rows.shape[0]:
            sums = np.add.reduceat(rows, np.minimum(offsets, rows.shape[0] - 1), axis=0)
            out[text:last][filled] = sums[filled]
        text = last
    return out


class EmbeddingsClient(Protocol):
    """What ``APIEmbedder`` needs of a client (``MeteredClient`` over ``OpenAIClient``)."""

    @property
    def provider(self) -> str: ...

    @property
    def embed_model(self) -> str: ...

    async def embed(self, texts: list[str]) -> list[list[float]]: ...


API_BATCH = 512
API_CONCURRENCY = 4


class APIEmbedder:
    """Embeddings from an OpenAI(-compatible) endpoint, a few batches at once."""

    word_vectors: Callable[[Sequence[str]], np.ndarray] | None = None
    word_weights: Callable[[Sequence[str]], np.ndarray] | None = None

    def __init__(self, client: EmbeddingsClient, dim: int | None = None) -> None:
        self._client = client
        self.dim = dim or 0
        self.id = f"{client.provider}-{client.embed_model}"

    async def embed(
        self, texts: Sequence[str], on_progress: OnProgress | None = None
    ) -> np.ndarray:
        batches = [list(texts[i : i + API_BATCH]) for i in range(0, len(texts), API_BATCH)]
        results: list[list[list[float]]] = [[] for _ in batches]
        gate = asyncio.Semaphore(API_CONCURRENCY)
        done = 0

        async def run(number: int, batch: list[str]) -> None:
            nonlocal done
            async with gate:
                results[number] = await self._client.embed(batch)
            done += len(batch)
            if on_progress is not None:
                on_progress(done, len(texts))

        await asyncio.gather(*(run(n, b) for n, b in enumerate(batches)))
        rows = [row for batch in results for row in batch]
        matrix = normalized(np.array(rows, dtype=np.float32)) if rows else np.zeros((0, 0))
        if matrix.size:
            self.dim = int(matrix.shape[1])
        return matrix.astype(np.float32)
