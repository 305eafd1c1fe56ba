"""A session's report in one of its formats, and writing it to a file atomically."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ralph_tui.atomic import write_atomic
from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.reports.build import build_bundle
from ralph_tui.reports.bundle import EvidenceBundle
from ralph_tui.reports.formats import FORMAT_OF_SUFFIX, ReportFormat
from ralph_tui.reports.page_pictures import PagePicture, page_pictures
from ralph_tui.traces.store import TraceStore


def format_of_path(path: Path) -> ReportFormat:
    """The format a report file's extension names; ``InputError`` for any other."""
    fmt = FORMAT_OF_SUFFIX.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMAT_OF_SUFFIX)
        raise InputError(f"cannot tell the report format of {path}: name it with {known}")
    return fmt


def render(bundle: EvidenceBundle, fmt: ReportFormat) -> str:
    """The report of ``bundle`` in ``fmt``."""
    if fmt == "json":
        return bundle.model_dump_json(indent=2) + "\n"
    if fmt == "md":
        from ralph_tui.reports.markdown import render_markdown

        return render_markdown(bundle)
    from ralph_tui.reports.html import render_html

    return render_html(bundle, pdf_pictures(bundle))


def pdf_pictures(bundle: EvidenceBundle) -> list[PagePicture]:
    """The pages the PDF quotes stand on, from PDFs that are still the bytes the run read."""
    paths = {
        source.name: Path(source.path)
        for source in bundle.sources
        if source.format == "pdf" and source.path and unchanged(Path(source.path), source.sha256)
    }
    return page_pictures(bundle.quotes, paths) if paths else []


def unchanged(path: Path, sha256: str | None) -> bool:
    try:
        return sha256 is None or hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def session_report(
    store: TraceStore, session_text: str, settings: Settings, fmt: ReportFormat
) -> str:
    """The report of the session ``session_text`` names (its id or a unique end of it)."""
    session_id = store.find_session(session_text)
    return render(build_bundle(store, session_id, settings), fmt)


def write_report(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` at once (temp file and rename): a reader never sees half.
    A report is written to be shared, so a new one follows the umask (session traces stay
    private)."""
    write_atomic(path, text, private=False)


REPORTS_DIR = "reports"
"""Where the app writes the reports it exports: ``<out>/reports/``."""


def exported_report_path(out_dir: Path, session_id: str, fmt: ReportFormat = "html") -> Path:
    """Where the app exports a session's report: one file per session, named by its id."""
    return out_dir / REPORTS_DIR / f"{session_id.replace('/', '_')}.{fmt}"


def export_session_report(store: TraceStore, session_id: str, settings: Settings) -> Path:
    """Write the session's HTML report to its place under the out dir; returns the path."""
    path = exported_report_path(store.out_dir, session_id)
    text = session_report(store, session_id, settings, "html")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_report(path, text)
    return path
