"""Build hooks of the documentation site (``hooks:`` in mkdocs.yml).

The reference's tables come from the code at every build: a page marks where one goes with
``<!-- generated: NAME -->`` and ``on_page_markdown`` puts it there (an unknown name fails the
build), and so is the evidence bundle's JSON Schema (``reference/evidence-bundle.schema.json``).
The app tour's pictures are the SVG snapshots the app's tests compare against, served from
where the tests keep them, so the pictures are always the screens as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from ralph_tui.cli import reference
from ralph_tui.reports.bundle import EvidenceBundle
from ralph_tui.reports.schema import SCHEMA_FILE, bundle_schema
from ralph_tui.sandbox.limits import SandboxLimits
from ralph_tui.traces.children import ChildRecord
from ralph_tui.traces.models import IterationTrace, SessionRecord

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "tui" / "__snapshots__"
SCREENS = "assets/screens"
"""Where the snapshots appear in the site: ``assets/screens/<test name without test_>.svg``."""

PLACEHOLDER = re.compile(r"<!-- generated: ([a-z_]+) -->")

GENERATED: dict[str, Callable[[], str]] = {
    "cli": reference.cli_reference,
    "exit_codes": reference.exit_codes_reference,
    "settings": reference.settings_reference,
    "events": reference.events_reference,
    "session_record": lambda: reference.fields_table(SessionRecord),
    "iteration_trace": lambda: reference.fields_table(IterationTrace),
    "child_record": lambda: reference.fields_table(ChildRecord),
    "sandbox_limits": lambda: reference.fields_table(SandboxLimits),
    "mcp_client_settings": reference.mcp_client_settings_reference,
    "inner_modes": reference.inner_modes_reference,
    "evidence_bundle": lambda: "\n".join(
        reference.model_section(model, "###") for model in reference.models_within([EvidenceBundle])
    ),
    "trace_parts": lambda: "\n".join(
        reference.model_section(model, "###")
        for model in reference.models_within([SessionRecord, IterationTrace])
    ),
}
"""Each generated part, by the name a page gives it."""


def on_files(files: Files, config: Any) -> Files:
    schema = json.dumps(bundle_schema(), indent=2) + "\n"
    files.append(File.generated(config, f"reference/{SCHEMA_FILE}", content=schema))
    for snapshot in sorted(SNAPSHOTS.rglob("test_*.svg")):
        uri = f"{SCREENS}/{snapshot.name.removeprefix('test_')}"
        files.append(File.generated(config, uri, abs_src_path=str(snapshot)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def generated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATED:
            known = ", ".join(sorted(GENERATED))
            raise PluginError(f"{page.file.src_uri}: no generated part {name!r} (known: {known})")
        return GENERATED[name]()

    return PLACEHOLDER.sub(generated, markdown)
