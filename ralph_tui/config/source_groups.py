"""The settings of what a run reads besides its documents: retrieval, external
documentation, and the providers' keys and endpoints. Each class is one group."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    field_validator,
    model_validator,
)

from ralph_tui.config.declare import SettingsGroup, key, setting

EmbedderChoice = Literal["auto", "openai", "offline", "none"]
RerankChoice = Literal["auto", "on", "off"]
RefreshChoice = Literal["ttl", "always", "never"]
ExternalProviderChoice = Literal["local", "pageindex"]


class RetrievalSettings(SettingsGroup):
    group: ClassVar[str] = "retrieval"

    embed_model: str = setting(
        "text-embedding-3-small", "EMBED_MODEL", doc="OpenAI embedding model."
    )
    embedder: EmbedderChoice = setting(
        "auto",
        "EMBEDDER",
        flag="--embedder",
        doc="Embedder of the dense retrieval leg: `auto` (the OpenAI embeddings API when an "
        "OpenAI key or endpoint is set, else `offline`), `openai`, `offline` (word vectors "
        "shipped with ralph-tui: no key, no download) or `none` (lexical leg alone).",
    )
    chunk_size: PositiveInt = setting(
        500, "CHUNK_SIZE", flag="--chunkSize", doc="Retrieval chunk size in characters."
    )
    chunk_overlap: NonNegativeInt = setting(
        100,
        "CHUNK_OVERLAP",
        flag="--chunkOverlap",
        doc="Characters each retrieval chunk shares with the next (below the chunk size).",
    )
    top_n: PositiveInt = setting(
        15, "TOP_N", flag="--topN", doc="Retrieval candidates each leg finds (stage 1)."
    )
    top_k: PositiveInt = setting(
        5, "TOP_K", flag="--topK", doc="Retrieved passages handed on (at most topN)."
    )
    rerank: RerankChoice = setting(
        "auto",
        "RERANK",
        flag="--rerank",
        doc="MaxSim rerank of the candidates: `auto` (where the embedder gives word "
        "vectors), `on` or `off`.",
    )
    external_weight: NonNegativeFloat = setting(
        0.3,
        "EXTERNAL_WEIGHT",
        flag="--externalWeight",
        doc="Weight of external-doc passages in the fusion (document passages weigh 1).",
        aliases=("EXTERNAL_DOCS_WEIGHT",),
    )
    episode_weight: NonNegativeFloat = setting(
        0.5,
        "EPISODE_WEIGHT",
        doc="Weight of past-episode passages in the fusion (document passages weigh 1).",
    )

    @model_validator(mode="after")
    def _retrieval_fits(self) -> Self:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk overlap ({self.chunk_overlap}) must be below the chunk size "
                f"({self.chunk_size})"
            )
        if self.top_k > self.top_n:
            raise ValueError(
                f"topK ({self.top_k}) cannot exceed topN ({self.top_n}): the topK passages "
                "are picked from the topN candidates of each leg"
            )
        return self


class ExternalSettings(SettingsGroup):
    group: ClassVar[str] = "external docs"

    external_docs: str | None = setting(
        None,
        "EXTERNAL_DOCS",
        flag="--externalDocs",
        repeat=True,
        metavar="URL",
        doc="URLs of external documentation to crawl and search beside the document, "
        "comma-separated (the flag repeats).",
    )
    external_docs_file: Path | None = setting(
        None,
        "EXTERNAL_DOCS_FILE",
        flag="--externalDocsFile",
        doc="A file of external documentation URLs, one a line (`#` starts a comment).",
    )
    crawl_depth: NonNegativeInt = setting(
        1,
        "CRAWL_DEPTH",
        flag="--crawlDepth",
        doc="Links followed from each external URL (0: the page alone).",
        aliases=("EXTERNAL_DOCS_DEFAULT_DEPTH",),
    )
    external_max_pages: PositiveInt = setting(
        200,
        "EXTERNAL_MAX_PAGES",
        flag="--externalMaxPages",
        doc="Pages crawled at most from each external URL.",
        aliases=("EXTERNAL_DOCS_MAX_PAGES",),
    )
    external_refresh: RefreshChoice = setting(
        "ttl",
        "EXTERNAL_REFRESH",
        flag="--externalRefresh",
        doc="Cached external pages: `ttl` re-fetches them once older than the TTL (a "
        "conditional GET), `always` every run, `never` uses the cache only.",
        aliases=("EXTERNAL_DOCS_REFRESH",),
    )
    external_ttl_min: PositiveFloat = setting(
        1440.0,
        "EXTERNAL_TTL_MIN",
        flag="--externalTtlMin",
        doc="Minutes a cached external page stays fresh (with `--externalRefresh ttl`).",
        aliases=("EXTERNAL_DOCS_TTL_MIN",),
    )
    external_provider: ExternalProviderChoice = setting(
        "local",
        "EXTERNAL_PROVIDER",
        flag="--externalProvider",
        doc="How external pages become passages: `local` (chunks like the document's) or "
        "`pageindex` (a section tree from the headings, each passage under its section).",
        aliases=("EXTERNAL_DOCS_PROVIDER",),
    )
    external_cache_dir: Path | None = setting(
        None,
        "EXTERNAL_CACHE_DIR",
        flag="--externalCacheDir",
        doc="Where fetched external pages are kept (default <out>/external_docs).",
        aliases=("EXTERNAL_DOCS_CACHE_DIR",),
    )
    external_top_n: PositiveInt = setting(
        15,
        "EXTERNAL_TOP_N",
        flag="--externalTopN",
        doc="Retrieval candidates each leg finds among external passages.",
        aliases=("EXTERNAL_DOCS_TOP_N",),
    )
    external_top_k: PositiveInt = setting(
        5,
        "EXTERNAL_TOP_K",
        flag="--externalTopK",
        doc="External passages selected at most (at most externalTopN).",
        aliases=("EXTERNAL_DOCS_TOP_K",),
    )
    crawl_concurrency: PositiveInt = setting(
        4, "CRAWL_CONCURRENCY", doc="External pages fetched at once."
    )
    crawl_delay_s: NonNegativeFloat = setting(
        0.0,
        "CRAWL_DELAY_S",
        doc="Least seconds between two requests to one host (a robots.txt Crawl-delay that "
        "is longer wins).",
    )
    crawl_timeout_s: PositiveFloat = setting(
        20.0, "CRAWL_TIMEOUT_S", doc="Timeout of one external page fetch."
    )
    external_page_max_mb: PositiveFloat = setting(
        20.0, "EXTERNAL_PAGE_MAX_MB", doc="Largest external page fetched, in MB."
    )

    @model_validator(mode="after")
    def _external_fits(self) -> Self:
        if self.external_top_k > self.external_top_n:
            raise ValueError(
                f"externalTopK ({self.external_top_k}) cannot exceed externalTopN "
                f"({self.external_top_n})"
            )
        return self


class UrlPolicySettings(SettingsGroup):
    """Where the crawler and ``verify`` may connect beyond the public internet. The user's
    to set (flags, environment, ``.env``): never recorded with a session, so a re-run
    applies the policy of the person running it, and never taken from an MCP client."""

    group: ClassVar[str] = "URL policy"

    allow_url_prefix: str | None = setting(
        None,
        "ALLOW_URL_PREFIX",
        flag="--allow-url-prefix",
        repeat=True,
        metavar="PREFIX",
        recorded=False,
        doc="URLs starting with this prefix (scheme, host and port exact, then the path) may "
        "be fetched even when the host's address is loopback, private, link-local or "
        "otherwise not public, e.g. `http://10.0.0.5:8080/docs/`; comma-separated (the flag "
        "repeats).",
    )
    allow_local_docs: bool = setting(
        False,
        "ALLOW_LOCAL_DOCS",
        flag="--allow-local-docs",
        recorded=False,
        doc="Let external docs and `verify` fetch from a documentation server on this "
        "machine (loopback addresses: `localhost`, 127.0.0.0/8, ::1).",
    )

    @field_validator("allow_url_prefix")
    @classmethod
    def _prefixes_are_urls(cls, value: str | None) -> str | None:
        for prefix in (part.strip() for part in (value or "").split(",")):
            try:
                parts = urlsplit(prefix)
                parts.port  # noqa: B018 - a bad port raises here
            except ValueError:
                parts = urlsplit("")
            if prefix and (parts.scheme.lower() not in ("http", "https") or not parts.hostname):
                raise ValueError(
                    f"{prefix!r} is not an http(s) URL prefix with a host "
                    "(e.g. http://127.0.0.1:8000/docs/)"
                )
        return value


class KeySettings(SettingsGroup):
    group: ClassVar[str] = "keys and endpoints"

    anthropic_api_key: SecretStr | None = key(
        "ANTHROPIC_API_KEY", "ANTHROPIC_APIKEY", doc="Anthropic API key."
    )
    openai_api_key: SecretStr | None = key(
        "OPENAI_API_KEY", "OPENAI_APIKEY", doc="OpenAI (or compatible server) API key."
    )
    anthropic_base_url: str | None = key(
        "ANTHROPIC_BASE_URL", doc="Anthropic-compatible endpoint.", secret=False
    )
    openai_base_url: str | None = key(
        "OPENAI_BASE_URL",
        doc="OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp...).",
        secret=False,
    )
    pageindex_api_key: SecretStr | None = key(
        "PAGEINDEX_API_KEY", doc="PageIndex API key (the hosted section-tree service)."
    )
    pageindex_base_url: str | None = key(
        "PAGEINDEX_BASE_URL",
        doc="PageIndex endpoint (default https://api.pageindex.ai).",
        secret=False,
    )
