"""``ralph-tui config``: every effective setting with where its value came from (a flag,
an environment variable, a ``.env`` line, the active variant, or the default). Keys are
shown as set or unset, never their values."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ralph_tui.cli.settings_flags import flag_values
from ralph_tui.config import (
    GROUPS,
    Layers,
    Settings,
    SettingSpec,
    load_settings,
    misspelled_settings,
    setting_specs,
)
from ralph_tui.redact import redact_urls
from ralph_tui.variants.store import chosen_variant, variant_values


def run_config(args: argparse.Namespace) -> int:
    layers = Layers(cli=flag_values(args))
    settings = load_settings(layers.cli)
    variant_id, from_variant = _variant(settings)
    rows = []
    for spec in setting_specs().values():
        source = layers.source_of(spec)
        value = getattr(settings, spec.name)
        if spec.name in from_variant:
            source, value = f"variant {variant_id}", from_variant[spec.name]
        rows.append({**_describe(spec, value), "source": source})
    warnings = misspelled_settings()
    if args.json:
        print(json.dumps({"settings": rows, "warnings": warnings}, ensure_ascii=False))
        return 0
    _print_table(rows)
    for warning in warnings:
        print(f"warning: {warning}")
    return 0


def _variant(settings: Settings) -> tuple[str | None, dict[str, Any]]:
    """The variant a run with ``settings`` would use, and the values it would set."""
    variant = chosen_variant(settings)
    if variant is None:
        return None, {}
    values = variant_values(settings, variant)
    values.pop("variant", None)
    return variant.id, values


def _describe(spec: SettingSpec, value: Any) -> dict[str, Any]:
    shown: Any = ("set" if value is not None else "unset") if spec.secret else value
    if not isinstance(shown, str | int | float | bool | dict | type(None)):
        shown = str(shown)
    if isinstance(shown, str):
        shown = redact_urls(shown)  # an endpoint may carry a password: http://user:PASS@host
    return {
        "name": spec.name,
        "group": spec.group,
        "value": shown,
        "env": spec.env,
        "flag": spec.flags[0] if spec.flags else None,
    }


def _print_table(rows: list[dict[str, Any]]) -> None:
    width = max(len(row["name"]) for row in rows)
    for group in GROUPS:
        print(f"{group.group}:")
        for row in (r for r in rows if r["group"] == group.group):
            value = row["value"]
            value = json.dumps(value) if isinstance(value, dict) else value
            value = "(none)" if value is None else value
            print(f"  {row['name']:<{width}}  {value!s:<28}  {row['source']}")
