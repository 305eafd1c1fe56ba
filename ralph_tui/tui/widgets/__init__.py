"""The widgets the screens are built from: panes, status line, form, session list."""
