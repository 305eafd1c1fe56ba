"""Model catalog: which names each provider's SDK knows, deprecations, context windows.

The known names come from the installed SDKs' own model types (``anthropic`` ``ModelParam``,
``openai`` ``ChatModel`` / ``EmbeddingModel``), so the catalog follows the SDK versions
instead of a hand-kept list. Deprecation dates come from the anthropic SDK's deprecation
tables and from the shutdown notes the openai SDK ships with ``ChatModel``. An unknown name
is never rejected or swapped: ``check_model`` only warns. The SDKs are imported inside the
functions so that importing this module stays cheap.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import re
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from ralph_tui.config.prices import model_name

DEFAULT_CONTEXT_WINDOW = 32_768
"""Window assumed for a model we know nothing about, typically a local model behind an
OpenAI-compatible server: small enough that oversized prompts are refused up front."""

KNOWN_OPENAI_CONTEXT_WINDOW = 128_000
"""Window assumed for an OpenAI model the SDK lists but the family table below lacks;
every current OpenAI chat family has at least this much."""

CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5-chat", 128_000),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-0125", 128_000),
    ("gpt-4-1106", 128_000),
    ("gpt-4-vision", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("codex-mini", 200_000),
    ("offline-", 200_000),
)
"""Context windows by family prefix; the first matching prefix wins, so specific first."""

IMAGE_INPUT: tuple[tuple[str, bool], ...] = (
    ("claude-2", False),
    ("claude-instant", False),
    ("claude-", True),
    ("gpt-4o-audio", False),
    ("gpt-4o-mini-audio", False),
    ("gpt-4o", True),
    ("chatgpt-4o", True),
    ("gpt-4.1", True),
    ("gpt-4.5", True),
    ("gpt-5", True),
    ("gpt-4-turbo-preview", False),
    ("gpt-4-turbo", True),
    ("gpt-4-vision", True),
    ("o1-mini", False),
    ("o1-preview", False),
    ("o1", True),
    ("o3-mini", False),
    ("o3", True),
    ("o4-mini", True),
)
"""Which model families take images in a user message (the providers' model pages), by
family prefix; the first matching prefix wins, so specific first. A model not listed (a
local model behind an OpenAI-compatible server) is taken as text-only: the ``sub_images``
setting says otherwise for one that is not."""

ANTHROPIC_DEPRECATION_TABLES = (
    ("anthropic._data.deprecated_models", "DEPRECATED_MODELS"),
    ("anthropic.resources.messages.messages", "DEPRECATED_MODELS"),
)


def _literal_members(annotation: Any) -> set[str]:
    """Every string of the ``Literal`` types inside ``annotation`` (unions searched)."""
    origin = get_origin(annotation)
    if origin is Literal:
        return {arg for arg in get_args(annotation) if isinstance(arg, str)}
    if origin is Union:
        return set().union(*(_literal_members(arg) for arg in get_args(annotation)))
    return set()


@cache
def anthropic_models() -> frozenset[str]:
    """Model names the installed anthropic SDK lists, deprecated ones included."""
    from anthropic.types.model_param import ModelParam

    return frozenset(_literal_members(ModelParam) | set(anthropic_deprecations()))


@cache
def openai_chat_models() -> frozenset[str]:
    """Chat model names the installed openai SDK lists."""
    from openai.types.shared.chat_model import ChatModel

    return frozenset(_literal_members(ChatModel))


@cache
def openai_embedding_models() -> frozenset[str]:
    """Embedding model names the installed openai SDK lists."""
    from openai.types.embedding_model import EmbeddingModel

    return frozenset(_literal_members(EmbeddingModel))


@cache
def anthropic_deprecations() -> dict[str, str]:
    """Deprecated Anthropic model → its end-of-life date, merged from the SDK's tables."""
    merged: dict[str, str] = {}
    for module_name, attribute in ANTHROPIC_DEPRECATION_TABLES:
        try:
            table = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError):
            continue
        merged.update({str(name): str(date) for name, date in table.items()})
    return merged


@cache
def openai_shutdown_dates() -> dict[str, str]:
    """OpenAI model → announced shutdown date, read from the notes under ``ChatModel``.

    The openai SDK keeps these only as the string literal after the ``ChatModel`` alias,
    which Python does not attach to anything, so the module's source is parsed for it.
    Empty when the SDK no longer ships the notes in that form.
    """
    spec = importlib.util.find_spec("openai.types.shared.chat_model")
    if spec is None or spec.origin is None:
        return {}
    notes = _string_after_assignment(Path(spec.origin).read_text(encoding="utf-8"), "ChatModel")
    return _parse_shutdown_notes(notes)


def _string_after_assignment(source: str, name: str) -> str:
    body = ast.parse(source).body
    for node, following in itertools.pairwise(body):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name:
            value = following.value if isinstance(following, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return ""


_NOTE = re.compile(r"^- (?P<names>(?:\"[^\"]+\",?\s*)+): Announced shutdown date: (?P<date>[\d-]+)")


def _parse_shutdown_notes(notes: str) -> dict[str, str]:
    dates: dict[str, str] = {}
    for bullet in re.split(r"\n(?=- )", notes):
        match = _NOTE.match(" ".join(bullet.split()))
        if match:
            for name in re.findall(r"\"([^\"]+)\"", match["names"]):
                dates[name] = match["date"].rstrip("-")
    return dates


def check_model(provider: str, name: str) -> list[str]:
    """Warnings about using ``name`` with ``provider``: unknown (used as given) or deprecated."""
    if provider == "anthropic":
        if name in anthropic_deprecations():
            return [
                f"model {name!r} is deprecated and reaches end-of-life on "
                f"{anthropic_deprecations()[name]}; see "
                "https://docs.anthropic.com/en/docs/resources/model-deprecations"
            ]
        if name not in anthropic_models():
            return [f"model {name!r} is not in the anthropic SDK's model list; used as given"]
    elif provider == "openai":
        if name in openai_shutdown_dates():
            return [
                f"model {name!r} has an announced shutdown date of "
                f"{openai_shutdown_dates()[name]}; see "
                "https://developers.openai.com/api/docs/deprecations"
            ]
        if name not in openai_chat_models() | openai_embedding_models():
            return [
                f"model {name!r} is not in the openai SDK's model list; used as given "
                "(expected for a local server behind OPENAI_BASE_URL)"
            ]
    return []


def context_window_tokens(provider: str, name: str) -> int:
    """The context window of ``name`` by family prefix, or a documented default."""
    lowered = name.lower()
    for prefix, window in CONTEXT_WINDOWS:
        if lowered.startswith(prefix):
            return window
    if provider == "openai" and name in openai_chat_models():
        return KNOWN_OPENAI_CONTEXT_WINDOW
    return DEFAULT_CONTEXT_WINDOW


def accepts_images(provider: str, name: str) -> bool:
    """Whether ``name`` takes images as input, as ``IMAGE_INPUT`` declares (the offline
    baseline never does: it answers a page from its text)."""
    if provider not in ("anthropic", "openai"):
        return False
    lowered = name.lower()
    return next((takes for prefix, takes in IMAGE_INPUT if lowered.startswith(prefix)), False)


def parse_model_spec(spec: str, default_provider: str) -> tuple[str, str]:
    """Split ``provider:model``; the prefix counts only if it names a known provider.

    Only the first colon splits, so ``openai:qwen2.5:7b`` is ``("openai", "qwen2.5:7b")``
    while ``qwen2.5:7b`` alone is ``(default_provider, "qwen2.5:7b")``.
    """
    name = model_name(spec)
    if name != spec.strip():
        return spec.strip().partition(":")[0].lower(), name
    return default_provider, name
