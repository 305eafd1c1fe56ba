"""``ralph-tui run ... --estimate``: the run's estimate, printed instead of running it. No key
is needed, no model is called, nothing goes on the network."""

from __future__ import annotations

import argparse
import json

from ralph_tui.cli.estimate_text import estimate_lines
from ralph_tui.estimates import RunEstimate, estimate_for
from ralph_tui.loops.requests import RunRequest


def estimate_of_request(request: RunRequest) -> RunEstimate:
    return estimate_for(
        request.settings,
        request.mode,
        request.query,
        request.doc_specs(),
        constraints=request.constraints,
        decompose=request.decompose,
        within=request.within,
    )


def print_estimate(request: RunRequest, args: argparse.Namespace) -> int:
    estimate = estimate_of_request(request)
    if args.json:
        print(json.dumps(estimate.model_dump(mode="json"), ensure_ascii=False))
    else:
        print("\n".join(estimate_lines(estimate)))
    return 0
