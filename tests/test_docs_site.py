"""The documentation site builds with ``mkdocs build --strict``: a warning, a broken link or a
broken anchor fails it, and the reference it generates from the code is in the pages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ralph_tui.cli.app import build_parser
from ralph_tui.cli.reference import event_types
from ralph_tui.config import setting_specs
from ralph_tui.reports.schema import SCHEMA_FILE, bundle_schema
from tests.test_reference import command_progs

ROOT = Path(__file__).parents[1]
SNAPSHOTS = Path("tests") / "tui" / "__snapshots__"


def build(config_root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the site configured in ``config_root``, with this
    checkout's ralph_tui importable (the build hook generates the reference from it)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get(
        "PYTHONPATH")])), "NO_MKDOCS_2_WARNING": "1"}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=config_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_strictly_with_the_generated_reference(tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = build(ROOT, site)
    assert built.returncode == 0, built.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for prog in command_progs(build_parser()):
        assert f"<code>{prog}</code>" in cli, prog
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    for spec in setting_specs().values():
        assert spec.env in settings, spec.env
    traces = (site / "reference" / "traces" / "index.html").read_text(encoding="utf-8")
    for event in event_types():
        assert f"<code>{event.model_fields['type'].default}</code>" in traces, event
    assert "hardValidation" in traces
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "arun_task" in api and "RunResult" in api
    published = site / "reference" / SCHEMA_FILE
    assert json.loads(published.read_text(encoding="utf-8")) == bundle_schema()
    bundle = (site / "reference" / "bundle" / "index.html").read_text(encoding="utf-8")
    assert "<code>BundleSource</code>" in bundle and "<code>QuoteLocation</code>" in bundle
    snapshots = sorted((ROOT / SNAPSHOTS).rglob("test_*.svg"))
    assert snapshots
    for snapshot in snapshots:
        assert (site / "assets" / "screens" / snapshot.name.removeprefix("test_")).is_file()


def test_a_broken_link_or_anchor_fails_the_build(tmp_path: Path) -> None:
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copytree(ROOT / SNAPSHOTS, copy / SNAPSHOTS)
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    (copy / "ralph_tui").mkdir()  # what mkdocs.yml watches and mkdocstrings searches
    guide = copy / "docs" / "guide" / "index.md"
    guide.write_text(
        guide.read_text(encoding="utf-8")
        + "\nSee [a page](nowhere.md) and [a section](install.md#no-such-section).\n",
        encoding="utf-8",
    )
    built = build(copy, tmp_path / "site")
    assert built.returncode != 0
    assert "nowhere.md" in built.stderr
    assert "no-such-section" in built.stderr
