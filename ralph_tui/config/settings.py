"""``Settings``: every group of settings in one object, and the specs derived from it."""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from ralph_tui.config.declare import SettingsGroup, SettingSpec, spec_of
from ralph_tui.config.run_groups import (
    BudgetSettings,
    DocumentSettings,
    MemorySettings,
    ModelSettings,
    OutputSettings,
    SandboxSettings,
)
from ralph_tui.config.server_groups import McpServerSettings
from ralph_tui.config.source_groups import (
    ExternalSettings,
    KeySettings,
    RetrievalSettings,
    UrlPolicySettings,
)


class Settings(
    ModelSettings,
    BudgetSettings,
    RetrievalSettings,
    ExternalSettings,
    UrlPolicySettings,
    MemorySettings,
    OutputSettings,
    SandboxSettings,
    DocumentSettings,
    KeySettings,
    McpServerSettings,
    BaseSettings,
):
    """All of ralph-tui's settings. Build with ``load_settings`` to get friendly errors."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        case_sensitive=False,
    )

    @property
    def external_cache(self) -> Path:
        """Where fetched external pages are kept."""
        return self.external_cache_dir or Path(self.out_dir) / "external_docs"


GROUPS: tuple[type[SettingsGroup], ...] = tuple(
    cls for cls in Settings.__mro__ if issubclass(cls, SettingsGroup) and "group" in vars(cls)
)
"""The groups in the order help, docs and ``ralph-tui config`` show them."""


@functools.cache
def setting_specs() -> dict[str, SettingSpec]:
    """Every setting's spec, by field name, group by group."""
    specs: dict[str, SettingSpec] = {}
    for group in GROUPS:
        for name in group.__annotations__:
            if name in Settings.model_fields:
                specs[name] = spec_of(name, Settings.model_fields[name], group.group)
    assert set(specs) == set(Settings.model_fields), "a setting outside every group"
    return specs


def specs_in(*groups: str) -> list[SettingSpec]:
    """The settings of ``groups``, in their declared order."""
    return [spec for spec in setting_specs().values() if spec.group in groups]
