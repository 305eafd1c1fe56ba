"""Settings: CLI flags > environment > ``.env`` in the current directory > defaults.

Every setting has a canonical ``RALPH_*`` environment name; the research prototype's
names (``MAX_ITERS``, ``AX_MAX_ITERS``, ...) and the SDKs' standard key variables are
accepted as aliases. A bad value becomes a ``SettingsError`` with one line naming the
setting and where the value came from.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values
from pydantic import (
    AliasChoices,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from ralph_tui.errors import UsageError

ProviderChoice = Literal["auto", "offline"]
EmbedderChoice = Literal["auto", "openai", "offline", "none"]
RerankChoice = Literal["auto", "on", "off"]
RefreshChoice = Literal["ttl", "always", "never"]
ExternalProviderChoice = Literal["local", "pageindex"]
InnerChoice = Literal["rlm", "lcm"]


def _setting(
    default: Any,
    name: str,
    *,
    seed: bool = False,
    flag: str | None,
    doc: str,
    aliases: tuple[str, ...] = (),
) -> Any:
    """Read from ``RALPH_<name>``; a seed setting also from ``<name>`` and ``AX_<name>``,
    and any setting from its ``aliases`` (the seed's other names)."""
    names = [f"RALPH_{name}", *([name, f"AX_{name}"] if seed else []), *aliases]
    extra: dict[str, Any] = {"flag": flag, "env": names[0], "doc": doc}
    return Field(default, validation_alias=AliasChoices(*names), json_schema_extra=extra)


def _key(*names: str, doc: str) -> Any:
    extra: dict[str, Any] = {"flag": None, "env": names[0], "doc": doc}
    return Field(None, validation_alias=AliasChoices(*names), json_schema_extra=extra)


def parse_prices(text: str) -> dict[str, tuple[float, float]]:
    """``MODEL=IN/OUT,...`` as ``{model: (in, out)}`` (USD per million tokens); a
    ``provider:`` prefix on the model is dropped. ``ValueError`` says what is wrong."""
    prices: dict[str, tuple[float, float]] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        model, _, pair = item.partition("=")
        rates = pair.split("/")
        try:
            if not model.strip() or len(rates) != 2:
                raise ValueError
            low, high = float(rates[0]), float(rates[1])
        except ValueError:
            raise ValueError(
                f"{item!r} is not MODEL=IN/OUT (USD per million input/output tokens, "
                "e.g. smollm2=0.1/0.2)"
            ) from None
        if min(low, high) < 0:
            raise ValueError(f"{item!r}: a price cannot be negative")
        prices[model.strip().split(":", 1)[-1].lower()] = (low, high)
    return prices


class Settings(BaseSettings):
    """All of ralph-tui's settings. Build with ``load_settings`` to get friendly errors."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        case_sensitive=False,
    )

    generate_model: str = _setting(
        "claude-sonnet-4-6",
        "GENERATE_MODEL",
        seed=True,
        flag="--generate-model",
        doc="Model of the generate role (worker, doc reader, reasoner, decomposer, compactor); "
        "`provider:model` picks the provider, else Anthropic.",
    )
    validate_model: str = _setting(
        "gpt-5.4-mini",
        "VALIDATE_MODEL",
        seed=True,
        flag="--validate-model",
        doc="Model of the validate role (judges); `provider:model` picks the provider,"
        " else OpenAI.",
    )
    sub_model: str | None = _setting(
        None,
        "SUB_MODEL",
        flag="--sub-model",
        doc="Model answering `llm_query` calls from sandbox code (default: the generate model).",
    )
    provider: ProviderChoice = _setting(
        "auto",
        "PROVIDER",
        flag="--provider",
        doc="`auto` uses the models above; `offline` puts every role on the keyless baseline.",
    )
    max_iters: PositiveInt = _setting(
        4, "MAX_ITERS", seed=True, flag="--maxIters", doc="Outer loop iterations at most."
    )
    worker_max_steps: PositiveInt = _setting(
        80,
        "WORKER_MAX_STEPS",
        seed=True,
        flag="--worker-max-steps",
        doc="Steps of the RLM agent per iteration.",
    )
    worker_max_llm_calls: PositiveInt = _setting(
        60,
        "WORKER_MAX_LLM_CALLS",
        seed=True,
        flag="--worker-max-llm-calls",
        doc="`llm_query` sub-calls per iteration (a batch counts each prompt).",
    )
    temperature: float | None = _setting(
        None,
        "TEMPERATURE",
        flag="--temperature",
        doc="Sampling temperature of the exploring roles (worker, DocReader), where the model "
        "takes one (default: the provider's).",
    )
    variant: str | None = _setting(
        None,
        "VARIANT",
        flag="--variant",
        doc="The configuration variant to run with (`ralph-tui optimize` lists them; "
        "default: the active one, if any; `baseline`: none).",
    )
    role_prompts: dict[str, str] = _setting(
        {},
        "ROLE_PROMPTS",
        flag=None,
        doc="Role prompts that replace the built-in ones, as JSON by role (worker, doc_reader, "
        "judge, task_judge, reasoner, compactor, decomposer, aggregator); a variant sets them.",
    )
    context_window: PositiveInt | None = _setting(
        None,
        "CONTEXT_WINDOW",
        flag="--context-window",
        doc="The context window, in tokens, of the run's models (default: each model's known "
        "window, else 32,768); set it for a local server (llama.cpp's --n_ctx).",
    )
    inner: InnerChoice = _setting(
        "rlm",
        "INNER",
        flag="--inner",
        doc="How the worker and the DocReader explore the document: `rlm` (the model writes "
        "Python that runs in the sandbox) or `lcm` (it calls operators as tools: grep, read, "
        "retrieve, llm_map, expand; no sandbox).",
    )
    progress_heartbeat_ms: PositiveInt = _setting(
        8000,
        "PROGRESS_HEARTBEAT_MS",
        seed=True,
        flag="--progressMs",
        doc="Heartbeat interval during long phases.",
    )
    out_dir: Path = _setting(
        Path("out"), "OUT_DIR", seed=True, flag="--out", doc="Where traces and the index go."
    )
    mem_file: Path | None = _setting(
        None, "MEM_FILE", flag="--memFile", doc="Task-mode memory file (default <out>/context.md)."
    )
    cost_cap_usd: PositiveFloat | None = _setting(
        None,
        "COST_CAP_USD",
        flag="--cost-cap",
        doc="Stop the run cleanly once its LLM cost reaches this many US dollars.",
    )
    token_cap: PositiveInt | None = _setting(
        None,
        "TOKEN_CAP",
        flag="--token-cap",
        doc="Stop the run cleanly once its input + output tokens reach this many.",
    )
    prices: str | None = _setting(
        None,
        "PRICES",
        flag="--price",
        doc="USD per million input/output tokens of models without a list price: "
        "`MODEL=IN/OUT`, comma-separated (the flag repeats).",
    )
    run_timeout_s: PositiveFloat | None = _setting(
        None,
        "RUN_TIMEOUT_S",
        flag="--timeout",
        doc="Wall time of a whole run in seconds; past it the run ends as timed_out.",
    )
    evidence_min_chars: PositiveInt = _setting(
        12,
        "EVIDENCE_MIN_CHARS",
        flag=None,
        doc="Characters an evidence quote needs at least (shorter quotes prove nothing).",
    )
    evidence_min_words: PositiveInt = _setting(
        3,
        "EVIDENCE_MIN_WORDS",
        flag=None,
        doc="Words an evidence quote needs at least.",
    )
    doc_max_mb: PositiveFloat = _setting(
        200.0, "DOC_MAX_MB", flag=None, doc="Largest document file read, in MB."
    )
    corpus_max_mb: PositiveFloat = _setting(
        500.0, "CORPUS_MAX_MB", flag=None, doc="Largest total of a run's document files, in MB."
    )
    max_runtime_chars: PositiveInt = _setting(
        4000,
        "MAX_RUNTIME_CHARS",
        flag=None,
        doc="Sandbox output longer than this is cut to head + tail.",
    )
    cell_timeout_s: PositiveFloat = _setting(
        30.0, "CELL_TIMEOUT_S", flag=None, doc="Wall-clock limit of one sandbox cell."
    )
    sandbox_start_timeout_s: PositiveFloat = _setting(
        30.0,
        "SANDBOX_START_TIMEOUT_S",
        flag=None,
        doc="Time for the sandbox to start and load the document.",
    )
    sub_query_concurrency: PositiveInt = _setting(
        8, "SUB_QUERY_CONCURRENCY", flag=None, doc="Concurrent calls of `llm_query_batched`."
    )
    memory_budget_chars: PositiveInt = _setting(
        1500, "MEMORY_BUDGET_CHARS", flag=None, doc="Task-mode memory file budget."
    )
    compact_after_episodes: PositiveInt = _setting(
        6, "COMPACT_AFTER_EPISODES", flag=None, doc="Episodes before memory compaction."
    )
    embed_model: str = _setting(
        "text-embedding-3-small", "EMBED_MODEL", flag=None, doc="OpenAI embedding model."
    )
    embedder: EmbedderChoice = _setting(
        "auto",
        "EMBEDDER",
        flag="--embedder",
        doc="Embedder of the dense retrieval leg: `auto` (the OpenAI embeddings API when an "
        "OpenAI key or endpoint is set, else `offline`), `openai`, `offline` (word vectors "
        "shipped with ralph-tui: no key, no download) or `none` (lexical leg alone).",
    )
    chunk_size: PositiveInt = _setting(
        500, "CHUNK_SIZE", flag="--chunkSize", doc="Retrieval chunk size in characters."
    )
    chunk_overlap: NonNegativeInt = _setting(
        100,
        "CHUNK_OVERLAP",
        flag="--chunkOverlap",
        doc="Characters each retrieval chunk shares with the next (below the chunk size).",
    )
    top_n: PositiveInt = _setting(
        15, "TOP_N", flag="--topN", doc="Retrieval candidates each leg finds (stage 1)."
    )
    top_k: PositiveInt = _setting(
        5, "TOP_K", flag="--topK", doc="Retrieved passages handed on (at most topN)."
    )
    rerank: RerankChoice = _setting(
        "auto",
        "RERANK",
        flag="--rerank",
        doc="MaxSim rerank of the candidates: `auto` (where the embedder gives word "
        "vectors), `on` or `off`.",
    )
    external_weight: NonNegativeFloat = _setting(
        0.3,
        "EXTERNAL_WEIGHT",
        flag="--externalWeight",
        doc="Weight of external-doc passages in the fusion (document passages weigh 1).",
        aliases=("EXTERNAL_DOCS_WEIGHT",),
    )
    external_docs: str | None = _setting(
        None,
        "EXTERNAL_DOCS",
        flag="--externalDocs",
        doc="URLs of external documentation to crawl and search beside the document, "
        "comma-separated (the flag repeats).",
    )
    external_docs_file: Path | None = _setting(
        None,
        "EXTERNAL_DOCS_FILE",
        flag="--externalDocsFile",
        doc="A file of external documentation URLs, one a line (`#` starts a comment).",
    )
    crawl_depth: NonNegativeInt = _setting(
        1,
        "CRAWL_DEPTH",
        flag="--crawlDepth",
        doc="Links followed from each external URL (0: the page alone).",
        aliases=("EXTERNAL_DOCS_DEFAULT_DEPTH",),
    )
    external_max_pages: PositiveInt = _setting(
        200,
        "EXTERNAL_MAX_PAGES",
        flag="--externalMaxPages",
        doc="Pages crawled at most from each external URL.",
        aliases=("EXTERNAL_DOCS_MAX_PAGES",),
    )
    external_refresh: RefreshChoice = _setting(
        "ttl",
        "EXTERNAL_REFRESH",
        flag="--externalRefresh",
        doc="Cached external pages: `ttl` re-fetches them once older than the TTL (a "
        "conditional GET), `always` every run, `never` uses the cache only.",
        aliases=("EXTERNAL_DOCS_REFRESH",),
    )
    external_ttl_min: PositiveFloat = _setting(
        1440.0,
        "EXTERNAL_TTL_MIN",
        flag="--externalTtlMin",
        doc="Minutes a cached external page stays fresh (with `--externalRefresh ttl`).",
        aliases=("EXTERNAL_DOCS_TTL_MIN",),
    )
    external_provider: ExternalProviderChoice = _setting(
        "local",
        "EXTERNAL_PROVIDER",
        flag="--externalProvider",
        doc="How external pages become passages: `local` (chunks like the document's) or "
        "`pageindex` (a section tree from the headings, each passage under its section).",
        aliases=("EXTERNAL_DOCS_PROVIDER",),
    )
    external_cache_dir: Path | None = _setting(
        None,
        "EXTERNAL_CACHE_DIR",
        flag="--externalCacheDir",
        doc="Where fetched external pages are kept (default <out>/external_docs).",
        aliases=("EXTERNAL_DOCS_CACHE_DIR",),
    )
    external_top_n: PositiveInt = _setting(
        15,
        "EXTERNAL_TOP_N",
        flag="--externalTopN",
        doc="Retrieval candidates each leg finds among external passages.",
        aliases=("EXTERNAL_DOCS_TOP_N",),
    )
    external_top_k: PositiveInt = _setting(
        5,
        "EXTERNAL_TOP_K",
        flag="--externalTopK",
        doc="External passages selected at most (at most externalTopN).",
        aliases=("EXTERNAL_DOCS_TOP_K",),
    )
    crawl_concurrency: PositiveInt = _setting(
        4, "CRAWL_CONCURRENCY", flag=None, doc="External pages fetched at once."
    )
    crawl_delay_s: NonNegativeFloat = _setting(
        0.0,
        "CRAWL_DELAY_S",
        flag=None,
        doc="Least seconds between two requests to one host (a robots.txt Crawl-delay that "
        "is longer wins).",
    )
    crawl_timeout_s: PositiveFloat = _setting(
        20.0, "CRAWL_TIMEOUT_S", flag=None, doc="Timeout of one external page fetch."
    )
    external_page_max_mb: PositiveFloat = _setting(
        20.0, "EXTERNAL_PAGE_MAX_MB", flag=None, doc="Largest external page fetched, in MB."
    )
    episode_weight: NonNegativeFloat = _setting(
        0.5,
        "EPISODE_WEIGHT",
        flag=None,
        doc="Weight of past-episode passages in the fusion (document passages weigh 1).",
    )
    llm_max_retries: NonNegativeInt = _setting(
        3, "LLM_MAX_RETRIES", flag=None, doc="Retries of a rate-limited or overloaded call."
    )
    llm_timeout_s: PositiveFloat | None = _setting(
        None,
        "LLM_TIMEOUT_S",
        flag=None,
        doc="Timeout of one LLM call in seconds (default 120; 600 for a server on this "
        "machine, which is slow and is not retried after a timeout).",
    )
    anthropic_api_key: SecretStr | None = _key(
        "ANTHROPIC_API_KEY", "ANTHROPIC_APIKEY", doc="Anthropic API key."
    )
    openai_api_key: SecretStr | None = _key(
        "OPENAI_API_KEY", "OPENAI_APIKEY", doc="OpenAI (or compatible server) API key."
    )
    anthropic_base_url: str | None = _key(
        "ANTHROPIC_BASE_URL", doc="Anthropic-compatible endpoint."
    )
    openai_base_url: str | None = _key(
        "OPENAI_BASE_URL", doc="OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp...)."
    )
    pageindex_api_key: SecretStr | None = _key(
        "PAGEINDEX_API_KEY", doc="PageIndex API key (the hosted section-tree service)."
    )
    pageindex_base_url: str | None = _key(
        "PAGEINDEX_BASE_URL", doc="PageIndex endpoint (default https://api.pageindex.ai)."
    )

    @model_validator(mode="after")
    def _retrieval_fits(self) -> Settings:
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
        if self.external_top_k > self.external_top_n:
            raise ValueError(
                f"externalTopK ({self.external_top_k}) cannot exceed externalTopN "
                f"({self.external_top_n})"
            )
        return self

    @property
    def external_cache(self) -> Path:
        """Where fetched external pages are kept."""
        return self.external_cache_dir or Path(self.out_dir) / "external_docs"

    @field_validator("prices")
    @classmethod
    def _prices_parse(cls, value: str | None) -> str | None:
        if value is not None:
            parse_prices(value)
        return value

    def price_table(self) -> dict[str, tuple[float, float]]:
        """The prices given with ``--price`` / ``RALPH_PRICES``, by model."""
        return parse_prices(self.prices) if self.prices else {}


class SettingsError(UsageError):
    """A setting has a bad value. The message is one line fit for a user."""

    title = "Invalid settings"


def setting_fields() -> dict[str, dict[str, Any]]:
    """Each setting's flag, canonical env name, aliases, default and description."""
    table: dict[str, dict[str, Any]] = {}
    for name, field in Settings.model_fields.items():
        extra = field.json_schema_extra
        assert isinstance(extra, dict)
        alias = field.validation_alias
        names = [str(c) for c in alias.choices] if isinstance(alias, AliasChoices) else []
        table[name] = {**extra, "aliases": names[1:], "default": field.default}
    return table


def _source_of(name: str, cli: dict[str, Any], env_file: Path) -> str:
    info = setting_fields()[name]
    if name in cli:
        return f"command-line flag {info['flag'] or name}"
    for env in [info["env"], *info["aliases"]]:
        for key in os.environ:
            if key.upper() == env.upper():
                return f"environment variable {key}"
    if env_file.is_file():
        return f"{env_file} ({info['env']} or an alias)"
    return "default"


def load_settings(cli: dict[str, Any] | None = None, env_file: Path | None = None) -> Settings:
    """Build settings with CLI overrides on top; raise ``SettingsError`` on a bad value."""
    cli = {k: v for k, v in (cli or {}).items() if v is not None}
    env_path = env_file or Path(".env")
    try:
        return Settings(_env_file=env_path, **cli)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first.get("loc") or ()
        name = _field_for(str(loc[0])) if loc else None
        if name is None:
            message = str(first["msg"]).removeprefix("Value error, ")
            raise SettingsError(f"invalid settings: {message}") from None
        value = first.get("input")
        raise SettingsError(
            f"invalid value {value!r} for setting {name} (from {_source_of(name, cli, env_path)}):"
            f" {first['msg']}"
        ) from None


OWN_PREFIXES = ("RALPH_", "AX_")
"""Names with these prefixes are meant for ralph-tui: an unknown one is a misspelling."""


def misspelled_settings(
    env_file: Path | None = None, environ: Mapping[str, str] = os.environ
) -> list[str]:
    """A warning for each setting name that looks meant for ralph-tui but is not one (it
    would be silently ignored), naming the closest known setting."""
    known = sorted({name.upper() for info in setting_fields().values() for name in _names_of(info)})
    path = env_file or Path(".env")
    found = [(key, "the environment") for key in environ if key.upper().startswith(OWN_PREFIXES)]
    if path.is_file():
        found += [(key, str(path)) for key in dotenv_values(path)]
    warnings = []
    for key, where in found:
        if key.upper() in known:
            continue
        close = difflib.get_close_matches(key.upper(), known, n=1, cutoff=0.75)
        if not close and not key.upper().startswith(OWN_PREFIXES):
            continue  # another tool's variable in a shared .env
        hint = f"did you mean {close[0]}?" if close else "see the settings table in the README"
        warnings.append(f"unknown setting {key} in {where} is ignored: {hint}")
    return warnings


def _names_of(info: dict[str, Any]) -> list[str]:
    return [info["env"], *info["aliases"]]


def _field_for(loc: str) -> str | None:
    if loc in Settings.model_fields:
        return loc
    for name, info in setting_fields().items():
        if loc.upper() in {a.upper() for a in [info["env"], *info["aliases"]]}:
            return name
    return None
