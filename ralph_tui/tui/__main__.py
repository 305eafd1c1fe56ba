"""``python -m ralph_tui.tui [demo]``: open the app directly (``demo`` starts the sample run)."""

import sys

from ralph_tui.tui.app import run_app

raise SystemExit(run_app(demo=sys.argv[1:] == ["demo"]))
