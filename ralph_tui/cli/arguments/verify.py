"""``ralph-tui verify``: its arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ralph_tui.cli.settings_flags import URL_POLICY, add_settings_flags


def add_verify_arguments(verify: argparse.ArgumentParser) -> None:
    verify.description = (
        "Read each source of an evidence bundle again (the same conversion; "
        "external pages fetched anew unless --offline) and check every quote at its saved "
        "span, then anywhere in its source: it holds, moved, changed (the closest passage "
        "shown), or its source is missing. Exit 0 only when every quote holds."
    )
    verify.add_argument("bundle", type=Path, help="the evidence bundle (JSON)")
    verify.add_argument(
        "--doc",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="where a source file is now, when it moved (matched to the bundle's sources by "
        "name, then by SHA-256); a folder gives its files; repeat the flag for several",
    )
    verify.add_argument(
        "--offline", action="store_true", help="fetch no external page (they are not checked)"
    )
    verify.add_argument(
        "--trust-paths",
        action="store_true",
        help="read a source file from the path the bundle saves even outside the bundle's "
        "folder and the working folder (only for a bundle you trust: by default such a "
        "path is a hint, and the file is looked for by name there, or given with --doc)",
    )
    verify.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings_flags(verify, (URL_POLICY,), also=("out_dir",))
