"""The variant store: ``<out>/variants/<id>.json`` (atomic writes), each variant with its
parent and the change that made it, and ``<out>/variants/active`` naming the active one.

A variant sets knobs (``temperature``, ``worker_max_steps``, ``worker_max_llm_calls``,
``max_iters``, ``top_k``) and role prompts (by role name: the exploring roles' definitions,
the structured roles' system prompts). Applied to a run's settings it fills only what
neither the command line nor the environment set, and names itself in ``variant`` so every
session records it."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ralph_tui.atomic import write_atomic
from ralph_tui.config import Settings, with_values
from ralph_tui.errors import UsageError

KNOBS = ("temperature", "worker_max_steps", "worker_max_llm_calls", "max_iters", "top_k")
ACTIVE_FILE = "active"
BASELINE = "baseline"
"""What sessions run without a variant are counted under."""


class Variant(BaseModel):
    id: str
    parent: str | None = None
    change: str = ""
    """What made it from its parent, in words."""
    knobs: dict[str, Any] = Field(default_factory=dict)
    prompts: dict[str, str] = Field(default_factory=dict)
    created_at: float = Field(default_factory=time.time)
    projection: dict[str, float] = Field(default_factory=dict)
    """Heuristic figures for a variant not measured yet (``pass_rate``, ``latency_s``,
    ``cost_usd``): provisional until sessions run under it."""


class UnknownVariantError(UsageError):
    """A variant id the store does not hold; the message lists those it does."""

    title = "Unknown variant"


def variant_id(knobs: dict[str, Any], prompts: dict[str, str]) -> str:
    """The same configuration gets the same id: ``v`` and a hash of it."""
    text = json.dumps({"knobs": knobs, "prompts": prompts}, sort_keys=True)
    return "v" + hashlib.sha256(text.encode()).hexdigest()[:8]


class VariantStore:
    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / "variants"

    def save(self, variant: Variant) -> Variant:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / f"{variant.id}.json", variant.model_dump_json(indent=2))
        return variant

    def get(self, variant_id: str) -> Variant:
        path = self.folder / f"{variant_id}.json"
        try:
            return Variant.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            known = ", ".join(v.id for v in self.all()) or "none yet (run `ralph-tui optimize`)"
            raise UnknownVariantError(f"no variant {variant_id!r}; the variants: {known}") from None

    def all(self) -> list[Variant]:
        """Every variant, oldest first (an unreadable file is skipped)."""
        found = []
        for path in sorted(self.folder.glob("v*.json")) if self.folder.is_dir() else []:
            try:
                found.append(Variant.model_validate_json(path.read_text(encoding="utf-8")))
            except (OSError, ValidationError):
                continue
        return sorted(found, key=lambda v: v.created_at)

    def active_id(self) -> str | None:
        try:
            text = (self.folder / ACTIVE_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return text or None

    def activate(self, variant_id: str) -> Variant | None:
        """Make ``variant_id`` the active variant (``baseline``: none); the variant."""
        variant = None if variant_id == BASELINE else self.get(variant_id)
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / ACTIVE_FILE, variant_id + "\n")
        return variant


def variant_values(settings: Settings, variant: Variant) -> dict[str, Any]:
    """What ``variant`` sets in ``settings``: its knobs and prompts where neither the
    command line nor the environment set them, and ``variant`` naming it."""
    values: dict[str, Any] = {
        knob: value
        for knob, value in variant.knobs.items()
        if knob in KNOBS and knob not in settings.model_fields_set
    }
    if variant.prompts and "role_prompts" not in settings.model_fields_set:
        values["role_prompts"] = dict(variant.prompts)
    values["variant"] = variant.id
    return values


def apply_variant(settings: Settings, variant: Variant) -> Settings:
    """``settings`` with ``variant_values``, validated like any other settings."""
    return with_values(settings, variant_values(settings, variant), f"variant {variant.id}")


def chosen_variant(settings: Settings) -> Variant | None:
    """The variant a run with ``settings`` uses: the one it names (``UnknownVariantError``
    if the store lacks it), else the active one; ``None`` for none or ``baseline``."""
    store = VariantStore(settings.out_dir)
    chosen = settings.variant or store.active_id()
    if chosen is None or chosen == BASELINE:
        return None
    return store.get(chosen)


def resolve_variant(settings: Settings) -> Settings:
    """The settings a run uses: with its chosen variant applied, if any."""
    variant = chosen_variant(settings)
    if variant is None:
        return settings.model_copy(update={"variant": None})
    return apply_variant(settings, variant)
