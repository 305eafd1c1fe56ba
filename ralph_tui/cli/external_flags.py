"""The external documentation settings' flags, shared by ``run`` and ``external`` (the
seed's camelCase names, each also in kebab-case). ``--externalDocs`` repeats."""

from __future__ import annotations

EXTERNAL_FLAGS: dict[str, tuple[str, ...]] = {
    "external_docs_file": ("--externalDocsFile", "--external-docs-file"),
    "crawl_depth": ("--crawlDepth", "--crawl-depth"),
    "external_max_pages": ("--externalMaxPages", "--external-max-pages"),
    "external_refresh": ("--externalRefresh", "--external-refresh"),
    "external_ttl_min": ("--externalTtlMin", "--external-ttl-min"),
    "external_provider": ("--externalProvider", "--external-provider"),
    "external_cache_dir": ("--externalCacheDir", "--external-cache-dir"),
    "external_top_n": ("--externalTopN", "--external-top-n"),
    "external_top_k": ("--externalTopK", "--external-top-k"),
}
EXTERNAL_DOCS_FLAGS = ("--externalDocs", "--external-docs")
