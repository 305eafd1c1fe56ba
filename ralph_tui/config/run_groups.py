"""The settings of a run itself: its models, budgets, output, memory, sandbox, documents
and evidence. Each class is one group."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, field_validator

from ralph_tui.config.declare import SettingsGroup, setting
from ralph_tui.config.inner_modes import InnerChoice, inner_modes_help
from ralph_tui.config.prices import parse_prices

DEFAULT_COST_CAP_USD = 5.0
"""The cost cap of a run that sets none (see ``BudgetSettings.cost_cap_usd``)."""
NO_CAP = frozenset({"none", "off"})
"""The words that remove the cost cap."""
ProviderChoice = Literal["auto", "offline"]
SubcallCacheScope = Literal["session", "shared", "off"]
SubImages = Literal["auto", "on", "off"]
MAX_DEPTH_LIMIT = 4
"""The deepest a tree of agents may go: each level multiplies what a run can start (its
sandboxes, its calls), so the setting is bounded."""
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH_LIMIT)]
VARIANT_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
"""What a variant is called by (``v1a2b3c4d``, ``baseline``): a name, never a path, as it
names a file of the variant store."""


class ModelSettings(SettingsGroup):
    group: ClassVar[str] = "models"

    generate_model: str = setting(
        "claude-sonnet-4-6",
        "GENERATE_MODEL",
        seed=True,
        flag="--generate-model",
        doc="Model of the generate role (worker, doc reader, reasoner, decomposer, compactor); "
        "`provider:model` picks the provider, else Anthropic.",
    )
    validate_model: str = setting(
        "gpt-5.4-mini",
        "VALIDATE_MODEL",
        seed=True,
        flag="--validate-model",
        doc="Model of the validate role (judges); `provider:model` picks the provider,"
        " else OpenAI.",
    )
    sub_model: str | None = setting(
        None,
        "SUB_MODEL",
        flag="--sub-model",
        doc="Model answering `llm_query` calls from sandbox code (default: the generate model).",
    )
    sub_images: SubImages = setting(
        "auto",
        "SUB_IMAGES",
        flag="--sub-images",
        doc="Whether `look(page)` sends the sub-model the rendered page: `auto` when its model "
        "is declared to take images (Claude 3 and later; GPT-4o, 4.1, 5; o1, o3, o4-mini), "
        "`on` for one the table does not know (a local vision model), `off` never (`look` "
        "then refuses; the offline baseline answers from the page's text either way).",
    )
    provider: ProviderChoice = setting(
        "auto",
        "PROVIDER",
        flag="--provider",
        doc="`auto` uses the models above; `offline` puts every role on the keyless baseline.",
    )
    temperature: float | None = setting(
        None,
        "TEMPERATURE",
        flag="--temperature",
        doc="Sampling temperature of the exploring roles (worker, DocReader), where the model "
        "takes one (default: the provider's).",
    )
    variant: str | None = setting(
        None,
        "VARIANT",
        flag="--variant",
        doc="The configuration variant to run with (`ralph-tui optimize` lists them; "
        "default: the active one, if any; `baseline`: none).",
    )
    role_prompts: dict[str, str] = setting(
        {},
        "ROLE_PROMPTS",
        doc="Role prompts that replace the built-in ones, as JSON by role (`worker`, "
        "`doc_reader`, `judge`, `task_judge`, `reasoner`, `compactor`, `decomposer`, "
        "`aggregator`); a variant sets them.",
    )
    context_window: PositiveInt | None = setting(
        None,
        "CONTEXT_WINDOW",
        flag="--context-window",
        doc="The context window, in tokens, of the run's models (default: each model's known "
        "window, else 32,768); set it for a local server (llama.cpp's --n_ctx).",
    )
    inner: InnerChoice = setting(
        "rlm",
        "INNER",
        flag="--inner",
        doc="How the worker and the DocReader explore the document: " + inner_modes_help() + ".",
    )
    llm_max_retries: NonNegativeInt = setting(
        3, "LLM_MAX_RETRIES", doc="Retries of a rate-limited or overloaded call."
    )
    stream: bool = setting(
        True,
        "STREAM",
        flag="--stream",
        doc="Stream model turns, to show them as they are written (`--no-stream`: whole "
        "requests; a server that cannot stream gets whole requests anyway).",
    )
    llm_timeout_s: PositiveFloat | None = setting(
        None,
        "LLM_TIMEOUT_S",
        doc="Timeout of one LLM call in seconds (default 120; 600 for a server on this "
        "machine, which is slow and is not retried after a timeout).",
    )

    @field_validator("variant")
    @classmethod
    def _variant_is_a_name(cls, value: str | None) -> str | None:
        if value is not None and not VARIANT_NAME.fullmatch(value):
            raise ValueError(
                "a variant is given by its id (v1a2b3c4d; `ralph-tui optimize` lists them) or "
                "`baseline`, not a path"
            )
        return value


class BudgetSettings(SettingsGroup):
    group: ClassVar[str] = "budgets"

    max_iters: PositiveInt = setting(
        4, "MAX_ITERS", seed=True, flag="--maxIters", doc="Outer loop iterations at most."
    )
    worker_max_steps: PositiveInt = setting(
        80,
        "WORKER_MAX_STEPS",
        seed=True,
        flag="--worker-max-steps",
        doc="Steps of the exploring agent per iteration; with `--max-depth` 2 or more, of its "
        "whole tree of agents (its children's steps come out of its own).",
    )
    worker_max_llm_calls: PositiveInt = setting(
        60,
        "WORKER_MAX_LLM_CALLS",
        seed=True,
        flag="--worker-max-llm-calls",
        doc="`llm_query` sub-calls per iteration (a batch counts each prompt).",
    )
    max_depth: Depth = setting(
        1,
        "MAX_DEPTH",
        flag="--max-depth",
        doc="Levels of agents a run may nest, 1 to 4: with 2 or more, sandbox code can call "
        "`rlm_query(prompt, context=...)`, which starts a child agent with its own sandbox over "
        "a slice of the text or some of the documents (at the deepest level it is answered by "
        "`llm_query`); the children share the run's budgets and caps. 1 (the default): no "
        "`rlm_query`.",
    )
    cost_cap_usd: PositiveFloat | None = setting(
        DEFAULT_COST_CAP_USD,
        "COST_CAP_USD",
        flag="--cost-cap",
        metavar="USD|none",
        doc="Stop the run cleanly (status `capped`, its best candidate kept) once its LLM cost "
        f"reaches this many US dollars; `none` removes the cap. The default, "
        f"${DEFAULT_COST_CAP_USD:.2f} per run, is above what a default QA run spends even "
        "using every step of every iteration (about $2.11 at the default models' prices, "
        "measured by `bench/stuck_schema.py`) and far below a runaway one (a model stuck on "
        "the output schema once spent $12.33 in one run). "
        "It sees only calls with a price: give others one with `--price`, or cap tokens.",
    )
    token_cap: PositiveInt | None = setting(
        None,
        "TOKEN_CAP",
        flag="--token-cap",
        doc="Stop the run cleanly once its input + output tokens reach this many.",
    )
    prices: str | None = setting(
        None,
        "PRICES",
        flag="--price",
        repeat=True,
        metavar="MODEL=IN/OUT",
        doc="USD per million input/output tokens of models without a list price: "
        "`MODEL=IN/OUT`, comma-separated (the flag repeats).",
    )
    subcall_cache: SubcallCacheScope = setting(
        "session",
        "SUBCALL_CACHE",
        flag="--subcall-cache",
        doc="Which answers of `llm_query`, `llm_query_batched` and `llm_map` are reused instead "
        "of paid for again: `session` (those of this session's earlier iterations and legs), "
        "`shared` (those of every session under the out dir), `off` (none).",
    )
    subcall_cache_mb: PositiveFloat = setting(
        64.0,
        "SUBCALL_CACHE_MB",
        recorded=False,
        doc="Size of the sub-call cache (`cache/subcalls.sqlite` under the out dir) in MB; "
        "past it the least recently used answers are dropped.",
    )
    run_timeout_s: PositiveFloat | None = setting(
        None,
        "RUN_TIMEOUT_S",
        flag="--timeout",
        doc="Wall time of a whole run in seconds; past it the run ends as timed_out.",
    )

    @field_validator("cost_cap_usd", mode="before")
    @classmethod
    def _no_cap(cls, value: object) -> object:
        """``none`` (or ``off``), from a flag, the environment or ``.env``: no cost cap."""
        if isinstance(value, str) and value.strip().lower() in NO_CAP:
            return None
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                raise ValueError("give a number of US dollars, or none for no cap") from None
        return value

    @field_validator("prices")
    @classmethod
    def _prices_parse(cls, value: str | None) -> str | None:
        if value is not None:
            parse_prices(value)
        return value

    def price_table(self) -> dict[str, tuple[float, float]]:
        """The prices given with ``--price`` / ``RALPH_PRICES``, by model."""
        return parse_prices(self.prices) if self.prices else {}


class OutputSettings(SettingsGroup):
    group: ClassVar[str] = "output"

    out_dir: Path = setting(
        Path("out"),
        "OUT_DIR",
        seed=True,
        flag="--out",
        more_flags=("--out-dir",),
        recorded=False,
        doc="Where traces and the index go.",
    )
    progress_heartbeat_ms: PositiveInt = setting(
        8000,
        "PROGRESS_HEARTBEAT_MS",
        seed=True,
        flag="--progressMs",
        doc="Heartbeat interval during long phases.",
    )


class MemorySettings(SettingsGroup):
    group: ClassVar[str] = "memory"

    mem_file: Path | None = setting(
        None, "MEM_FILE", flag="--memFile", doc="Task-mode memory file (default <out>/context.md)."
    )
    memory_budget_chars: PositiveInt = setting(
        1500, "MEMORY_BUDGET_CHARS", doc="Task-mode memory file budget."
    )
    compact_after_episodes: PositiveInt = setting(
        6, "COMPACT_AFTER_EPISODES", doc="Episodes before memory compaction."
    )


class SandboxSettings(SettingsGroup):
    group: ClassVar[str] = "sandbox"

    max_runtime_chars: PositiveInt = setting(
        4000, "MAX_RUNTIME_CHARS", doc="Sandbox output longer than this is cut to head + tail."
    )
    cell_timeout_s: PositiveFloat = setting(
        30.0, "CELL_TIMEOUT_S", doc="Wall-clock limit of one sandbox cell."
    )
    sandbox_start_timeout_s: PositiveFloat = setting(
        30.0,
        "SANDBOX_START_TIMEOUT_S",
        doc="Time for the sandbox to start and load the document.",
    )
    sub_query_concurrency: PositiveInt = setting(
        8, "SUB_QUERY_CONCURRENCY", doc="Concurrent calls of `llm_query_batched`."
    )


class DocumentSettings(SettingsGroup):
    group: ClassVar[str] = "documents and evidence"

    doc_max_mb: PositiveFloat = setting(
        200.0, "DOC_MAX_MB", doc="Largest document file read, in MB."
    )
    corpus_max_mb: PositiveFloat = setting(
        500.0, "CORPUS_MAX_MB", doc="Largest total of a run's document files, in MB."
    )
    ocr_max_pages: NonNegativeInt = setting(
        50,
        "OCR_MAX_PAGES",
        doc=(
            "Pages of one document read by OCR at most (scanned PDF pages, image files; "
            "a few seconds a page on a CPU); 0 reads none. Needs ralph-tui[ocr]."
        ),
        flag="--ocrMaxPages",
    )
    ocr_page_timeout_s: PositiveFloat = setting(
        60.0,
        "OCR_PAGE_TIMEOUT_S",
        doc=(
            "Seconds OCR may spend on one page (a dense 10-K page takes a few on a CPU); a "
            "page not read in this time is listed as unread, saying why, and the rest go on."
        ),
        flag="--ocrPageTimeout",
    )
    evidence_min_chars: PositiveInt = setting(
        12,
        "EVIDENCE_MIN_CHARS",
        doc="Characters an evidence quote needs at least (shorter quotes prove nothing).",
    )
    evidence_min_words: PositiveInt = setting(
        3, "EVIDENCE_MIN_WORDS", doc="Words an evidence quote needs at least."
    )
