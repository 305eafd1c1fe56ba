"""``ralph-tui mcp``: serve documents and sessions to an MCP client, over stdio (what
clients spawn) or streamable HTTP (``--http HOST:PORT``). The SDK is imported only here, when
the command runs, so the other commands start without it."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.documents import InputError


def run_mcp(args: argparse.Namespace) -> int:
    """Check the roots, the address and the settings, then serve until stopped."""
    from ralph_tui.mcp.roots import Roots
    from ralph_tui.mcp.server import ServerConfig, serve

    settings = settings_from_args(args)
    roots = Roots.of(args.root or [Path.cwd()])
    http = http_address(args.http) if args.http else None
    serve(ServerConfig(roots, settings), http=http)
    return 0


def http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` as a host and a port; ``InputError`` for anything else, or for an
    address this process cannot listen on (checked here, so a port in use is exit 2 with
    one line rather than the HTTP server's own startup failure)."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"--http {text}: give HOST:PORT, e.g. 127.0.0.1:8765")
    address = (host.strip("[]"), int(port))
    try:
        with socket.create_server(address):
            pass
    except OSError as exc:
        raise InputError(f"--http {text}: cannot listen there ({exc.strerror or exc})") from None
    return address
