"""``ralph-tui run ... --estimate``: the run's estimate, printed instead of running it. No key
is needed, no model is called, nothing goes on the network."""

from __future__ import annotations

import argparse
import json

from ralph_tui.cli.estimate_text import estimate_lines
from ralph_tui.estimates import estimate_of_request
from ralph_tui.loops.requests import RunRequest


def print_estimate(request: RunRequest, args: argparse.Namespace) -> int:
    estimate = estimate_of_request(request)
    if args.json:
        print(json.dumps(estimate.model_dump(mode="json"), ensure_ascii=False))
    else:
        print("\n".join(estimate_lines(estimate)))
    return 0
