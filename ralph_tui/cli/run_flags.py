"""The settings flags of ``run`` (and of the commands that run sessions: ``eval``), and the
settings they make."""

from __future__ import annotations

import argparse
from typing import Any

from ralph_tui.cli.external_flags import EXTERNAL_FLAGS
from ralph_tui.cli.retrieval_flags import RETRIEVAL_FLAGS
from ralph_tui.config import Settings, load_settings

RUN_FLAGS: dict[str, tuple[str, ...]] = {
    "max_iters": ("--maxIters", "--max-iters"),
    "out_dir": ("--out", "--out-dir"),
    "progress_heartbeat_ms": ("--progressMs", "--progress-ms"),
    "mem_file": ("--memFile", "--mem-file"),
    "provider": ("--provider",),
    "generate_model": ("--generate-model", "--generateModel"),
    "validate_model": ("--validate-model", "--validateModel"),
    "sub_model": ("--sub-model", "--subModel"),
    "cost_cap_usd": ("--cost-cap", "--costCap"),
    "token_cap": ("--token-cap",),
    "run_timeout_s": ("--timeout",),
    "worker_max_steps": ("--worker-max-steps", "--workerMaxSteps"),
    "worker_max_llm_calls": ("--worker-max-llm-calls", "--workerMaxLlmCalls"),
    "inner": ("--inner",),
    "context_window": ("--context-window", "--contextWindow"),
    "temperature": ("--temperature",),
    "variant": ("--variant",),
    **RETRIEVAL_FLAGS,
    **EXTERNAL_FLAGS,
}


def flag_help(dest: str) -> str:
    field = Settings.model_fields[dest]
    extra = field.json_schema_extra
    doc = extra.get("doc", "") if isinstance(extra, dict) else ""
    return f"{doc} (default: {field.default})"


def add_settings_flags(parser: argparse.ArgumentParser) -> None:
    """Every flag of ``RUN_FLAGS`` and ``--price``."""
    for dest, flags in RUN_FLAGS.items():
        parser.add_argument(*flags, dest=dest, default=None, help=flag_help(dest))
    parser.add_argument(
        "--price",
        action="append",
        dest="price",
        metavar="MODEL=IN/OUT",
        help=flag_help("prices") + "; repeat for several models",
    )


def settings_from_args(args: argparse.Namespace, base: dict[str, Any] | None = None) -> Settings:
    overrides = dict(base or {})
    overrides.update({d: getattr(args, d) for d in RUN_FLAGS if getattr(args, d) is not None})
    if args.price:
        overrides["prices"] = ",".join(args.price)
    if getattr(args, "external_docs", None):
        overrides["external_docs"] = ",".join(args.external_docs)
    return load_settings(overrides)
