"""Entry point of the ``ralph-tui`` command: the app with no arguments or ``demo``, else the CLI."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args == ["demo"]:
        from ralph_tui.tui.app import run_app

        return run_app(demo=bool(args))
    from ralph_tui.cli import run_cli

    return run_cli(args)


if __name__ == "__main__":
    raise SystemExit(main())
