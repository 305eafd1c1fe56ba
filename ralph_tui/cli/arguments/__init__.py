"""Each subcommand's arguments, kept apart from what the subcommand runs.

``ralph_tui.cli.commands`` imports one of these modules when its subcommand is chosen (its
``--help`` included), so they import only what parsing needs: ``argparse``, the settings'
flags (``ralph_tui.cli.settings_flags``), never the stacks the subcommand runs.
"""
