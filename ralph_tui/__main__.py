"""``python -m ralph_tui`` is the same as the ``ralph-tui`` command."""

from ralph_tui.main import main

raise SystemExit(main())
