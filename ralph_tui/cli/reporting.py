"""How the command line renders an error that ends a command: one line on stderr and, with
``--json``, one JSON object on stdout. The exit code is the error's own."""

from __future__ import annotations

import json
import sys

from ralph_tui.errors import RalphError


def report_error(error: RalphError, *, as_json: bool, session_id: str | None = None) -> int:
    """Render ``error`` the one way the command line does, and return its exit code."""
    print(f"ralph-tui: error: {error.one_line()}", file=sys.stderr)
    if as_json:
        print(json.dumps({**error.to_json(), "sessionId": session_id}, ensure_ascii=False))
    return int(error.exit_code)
