"""Know before you spend: what a run is expected to cost, and the most it can, in every
inner mode, from the documents' size, the settings, the models' prices and windows, and
what past sessions of the same models spent. No model call, no network.

``estimate_run`` is the pure function over plain inputs (a ``RunPlan``); ``estimate_for``
reads the documents and the session index for it.
"""

from ralph_tui.estimates.estimate import estimate_run, inner_modes, plan_of
from ralph_tui.estimates.figures import (
    SETTINGS_ONLY,
    CapStop,
    Figures,
    ModeEstimate,
    RoleFigures,
    RunEstimate,
)
from ralph_tui.estimates.gather import estimate_for, estimate_of_request
from ralph_tui.estimates.history import PastRun
from ralph_tui.estimates.spend import ModelInfo, RunPlan

__all__ = [
    "SETTINGS_ONLY",
    "CapStop",
    "Figures",
    "ModeEstimate",
    "ModelInfo",
    "PastRun",
    "RoleFigures",
    "RunEstimate",
    "RunPlan",
    "estimate_for",
    "estimate_of_request",
    "estimate_run",
    "inner_modes",
    "plan_of",
]
