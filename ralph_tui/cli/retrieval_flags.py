"""The retrieval settings' flags, shared by ``run``, ``index`` and ``search`` (the seed's
camelCase names, each also in kebab-case)."""

from __future__ import annotations

RETRIEVAL_FLAGS: dict[str, tuple[str, ...]] = {
    "embedder": ("--embedder",),
    "chunk_size": ("--chunkSize", "--chunk-size"),
    "chunk_overlap": ("--chunkOverlap", "--chunk-overlap"),
    "top_n": ("--topN", "--top-n"),
    "top_k": ("--topK", "--top-k"),
    "rerank": ("--rerank",),
    "external_weight": ("--externalWeight", "--external-weight"),
}
