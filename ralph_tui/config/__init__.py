"""Settings: CLI flags > a session's recorded settings > environment > ``.env`` in the
current directory > defaults, each declared once.

Every setting is a field of one of the groups in ``run_groups`` and ``source_groups``,
declared with ``setting()`` or ``key()``: its canonical ``RALPH_*`` environment name, the
research prototype's names as aliases, its flag, help text, and whether a session records
it. The flags of every subcommand, the recorded settings, the docs' settings reference
and ``.env.example`` are derived from those declarations (``setting_specs()``).
"""

from ralph_tui.config.declare import SettingSpec
from ralph_tui.config.load import (
    Layers,
    SettingsError,
    check_paths,
    load_settings,
    misspelled_settings,
    with_recorded,
    with_values,
)
from ralph_tui.config.prices import parse_prices
from ralph_tui.config.record import (
    RecordedPathOutside,
    recorded_settings,
    refuse_recorded_paths_outside,
    restored_settings,
)
from ralph_tui.config.run_groups import InnerChoice, ProviderChoice
from ralph_tui.config.settings import GROUPS, Settings, setting_specs, specs_in
from ralph_tui.config.source_groups import (
    EmbedderChoice,
    ExternalProviderChoice,
    RefreshChoice,
    RerankChoice,
)

__all__ = [
    "GROUPS",
    "EmbedderChoice",
    "ExternalProviderChoice",
    "InnerChoice",
    "Layers",
    "ProviderChoice",
    "RecordedPathOutside",
    "RefreshChoice",
    "RerankChoice",
    "SettingSpec",
    "Settings",
    "SettingsError",
    "check_paths",
    "load_settings",
    "misspelled_settings",
    "parse_prices",
    "recorded_settings",
    "refuse_recorded_paths_outside",
    "restored_settings",
    "setting_specs",
    "specs_in",
    "with_recorded",
    "with_values",
]
