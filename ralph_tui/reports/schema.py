"""The evidence bundle's JSON Schema, generated from its models: what the docs publish and
the tests validate bundles against, so neither can drift from the code."""

from __future__ import annotations

from typing import Any

from ralph_tui.reports.bundle import BUNDLE_VERSION, EvidenceBundle

SCHEMA_FILE = "evidence-bundle.schema.json"
"""The schema's file name in the documentation site (under ``reference/``)."""


def bundle_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a bundle as ``ralph-tui report --format json``
    writes it."""
    schema = EvidenceBundle.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"ralph-tui evidence bundle, version {BUNDLE_VERSION}",
        **{key: value for key, value in schema.items() if key != "title"},
    }
