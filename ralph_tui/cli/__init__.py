"""The command-line interface: ``ralph-tui run``, ``ralph-tui sessions``."""

from ralph_tui.cli.app import run_cli

__all__ = ["run_cli"]
