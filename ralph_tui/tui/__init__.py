"""The Textual app: a run screen that watches runs live, and a session browser.

``ralph_tui.tui.app.run_app(demo=False)`` opens it (``ralph-tui`` with no
arguments); ``run_app(demo=True)`` also starts the offline sample run.
"""
