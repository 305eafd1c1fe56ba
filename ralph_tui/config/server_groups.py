"""The settings of ``ralph-tui mcp`` as a server: who may reach it over HTTP and how many
runs it takes at once. None is recorded with a session (they are the server's, not a
run's), and an MCP client may set none of them."""

from __future__ import annotations

from typing import ClassVar

from pydantic import PositiveInt, SecretStr

from ralph_tui.config.declare import SettingsGroup, setting


class McpServerSettings(SettingsGroup):
    group: ClassVar[str] = "mcp server"

    mcp_token: SecretStr | None = setting(
        None,
        "MCP_TOKEN",
        flag="--token",
        metavar="TOKEN",
        secret=True,
        recorded=False,
        doc="Bearer token HTTP clients must send (`Authorization: Bearer TOKEN`); required "
        "when `--http` binds an address that is not loopback. `generate` makes a random one "
        "and prints it once as the server starts. At least 16 characters.",
    )
    mcp_allow_hosts: str | None = setting(
        None,
        "MCP_ALLOW_HOSTS",
        flag="--allow-host",
        repeat=True,
        metavar="HOST[:PORT]",
        recorded=False,
        doc="More `Host` header values the HTTP server answers (and `http(s)://` origins "
        "it accepts), beside the address it binds: e.g. the name of a reverse proxy in "
        "front of it; comma-separated (the flag repeats).",
    )
    mcp_max_runs: PositiveInt = setting(
        4,
        "MCP_MAX_RUNS",
        flag="--max-runs",
        metavar="N",
        recorded=False,
        doc="Runs (`ask_documents`, `run_task`) the MCP server carries out at once; a call "
        "beyond that waits for a slot, told so by progress notifications.",
    )
