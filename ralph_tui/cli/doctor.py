"""``ralph-tui doctor``: one line per check (ok, warn or fail, and what to do); exit 1 when a
check fails."""

from __future__ import annotations

import argparse
import json

from ralph_tui.cli.settings_flags import flag_values
from ralph_tui.cli.stopping import run_async
from ralph_tui.config import load_settings
from ralph_tui.doctor import report_lines, run_checks
from ralph_tui.errors import ExitCode


def run_doctor(args: argparse.Namespace) -> int:
    settings = load_settings(flag_values(args))
    checks = run_async(run_checks(settings, online=args.online))
    if args.json:
        print(json.dumps([check.to_json() for check in checks], ensure_ascii=False))
    else:
        print("\n".join(report_lines(checks)))
    failed = any(check.status == "fail" for check in checks)
    return int(ExitCode.FAILED if failed else ExitCode.OK)
