"""``ralph-tui mcp``: serve documents and sessions to an MCP client, over stdio (what
clients spawn) or streamable HTTP (``--http HOST:PORT``). The SDK is imported only here, when
the command runs, so the other commands start without it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ralph_tui.cli.settings_flags import settings_from_args


def run_mcp(args: argparse.Namespace) -> int:
    """Check the roots, the address, the token and the settings, then serve until
    stopped."""
    from ralph_tui.mcp.http import bind_of, http_access
    from ralph_tui.mcp.roots import Roots
    from ralph_tui.mcp.server import ServerConfig, serve

    settings = settings_from_args(args)
    roots = Roots.of(args.root or [Path.cwd()])
    access = http_access(bind_of(args.http), settings) if args.http else None
    if access is not None:
        reach = (
            "loopback only"
            if access.bind.loopback
            else "every interface"
            if access.bind.every_interface
            else "not loopback"
        )
        gate = "clients must send the token" if access.token else "no token"
        print(f"ralph-tui mcp: serving {access.bind.url} ({reach}; {gate})", file=sys.stderr)
        if not access.bind.loopback:
            print(
                "ralph-tui mcp: warning: plain HTTP, so the token crosses the network in the "
                "clear; serve a team through a reverse proxy with TLS (see the MCP guide)",
                file=sys.stderr,
            )
        if access.generated:
            print(
                f"ralph-tui mcp: token (shown only now): {access.token}",
                file=sys.stderr,
                flush=True,
            )
    serve(ServerConfig(roots, settings), http=access)
    return 0
