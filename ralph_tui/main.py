"""Entry point of the ``ralph-tui`` command: the app with no arguments, else the CLI."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from ralph_tui.cli import run_cli

    return run_cli(args)


if __name__ == "__main__":
    raise SystemExit(main())
