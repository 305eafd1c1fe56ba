"""Who may reach the server over streamable HTTP: the address it binds, the ``Host`` and
``Origin`` headers it answers, and the bearer token a client must send.

The address is resolved once and that address is bound, so the loopback decision is made
on what is actually listened on, not on its spelling (``127.1``, ``localhost`` and ``::1``
are loopback; ``0.0.0.0`` is every interface). Host and Origin are checked for every bind
(a DNS-rebinding page in a browser sends its own name as the Host); a bind that is not
loopback needs a token, and a token given on loopback is required there too.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ralph_tui.config import Settings
from ralph_tui.errors import UsageError

GENERATE = "generate"
"""The ``--token`` value that asks for a random token, printed once as the server starts."""
MIN_TOKEN_CHARS = 16
REALM = "ralph-tui"


class HttpAccessError(UsageError):
    """The HTTP server cannot start as asked: an address it cannot bind, or a bind that
    is not loopback without a token."""

    title = "MCP server not started"


@dataclass(frozen=True)
class Bind:
    """Where the HTTP server listens: ``host`` as given, the ``address`` it resolved to
    (the one bound), and whether that address is loopback or every interface."""

    host: str
    address: str
    port: int

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return ipaddress.ip_address(self.address)

    @property
    def loopback(self) -> bool:
        ip = self.ip
        mapped = getattr(ip, "ipv4_mapped", None)
        return ip.is_loopback or bool(mapped and mapped.is_loopback)

    @property
    def every_interface(self) -> bool:
        return self.ip.is_unspecified

    @property
    def url(self) -> str:
        return f"http://{_bracketed(self.address)}:{self.port}/mcp"


def bind_of(text: str) -> Bind:
    """``HOST:PORT`` resolved to the address that will be bound; ``HttpAccessError`` for
    anything else."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise HttpAccessError(f"--http {text}: give HOST:PORT, e.g. 127.0.0.1:8765")
    try:
        found = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise HttpAccessError(f"--http {text}: cannot resolve {host} ({exc})") from None
    return Bind(host, str(found[0][4][0]), int(port))


def check_listening(bind: Bind) -> None:
    """``HttpAccessError`` if this process cannot listen on ``bind`` (checked before
    serving, so a port in use is exit 2 with one line rather than the HTTP server's own
    failure)."""
    family = socket.AF_INET6 if bind.ip.version == 6 else socket.AF_INET
    try:
        with socket.create_server((bind.address, bind.port), family=family):
            pass
    except OSError as exc:
        raise HttpAccessError(
            f"--http {bind.host}:{bind.port}: cannot listen there ({exc.strerror or exc})"
        ) from None


@dataclass(frozen=True)
class HttpAccess:
    """A bind with what a request to it must carry: one of ``allowed_hosts`` as its Host,
    no Origin or one of ``allowed_origins``, and the ``token`` if there is one."""

    bind: Bind
    allowed_hosts: tuple[str, ...]
    token: str | None
    generated: bool = False
    """The token was made here (print it once: it is nowhere else)."""

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        return tuple(f"{scheme}://{host}" for host in self.allowed_hosts for scheme in _SCHEMES)

    def transport_security(self) -> TransportSecuritySettings:
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(self.allowed_hosts),
            allowed_origins=list(self.allowed_origins),
        )


_SCHEMES = ("http", "https")


def http_access(bind: Bind, settings: Settings) -> HttpAccess:
    """The access rules of ``bind`` under ``settings`` (``mcp_token``, ``mcp_allow_hosts``);
    ``HttpAccessError`` for a bind that is not loopback without a token (before anything
    listens there), a token too short to withstand guessing, or an address this process
    cannot listen on."""
    given = settings.mcp_token.get_secret_value().strip() if settings.mcp_token else ""
    generated = given == GENERATE
    token = secrets.token_urlsafe(32) if generated else given or None
    if token is None and not bind.loopback:
        where = "every interface" if bind.every_interface else "an address that is not loopback"
        raise HttpAccessError(
            f"--http {bind.host}:{bind.port} serves {where}, so clients must send a token",
            hint="give --token generate to have one made and printed once, or set "
            "RALPH_MCP_TOKEN; or bind 127.0.0.1 behind a reverse proxy",
        )
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise HttpAccessError(
            f"--token: at least {MIN_TOKEN_CHARS} characters",
            hint="give --token generate to have a random one made",
        )
    check_listening(bind)
    extra = (settings.mcp_allow_hosts or "").split(",")
    return HttpAccess(bind, allowed_hosts(bind, extra), token, generated)


def allowed_hosts(bind: Bind, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The Host headers a request to ``bind`` may carry: the address as given and as
    resolved, with the port; for loopback also ``localhost``, ``127.0.0.1`` and ``[::1]``;
    for every interface also this machine's names and addresses; and each of ``extra``
    (a name without a port is taken bare, as a proxy on 443 sends it, and with the port)."""
    names = {bind.host, bind.address}
    if bind.loopback or bind.every_interface:
        names |= {"localhost", "127.0.0.1", "::1"}
    if bind.every_interface:
        names |= _machine_names()
    hosts = [f"{_bracketed(name)}:{bind.port}" for name in sorted(names)]
    if bind.port == 80:
        hosts += [_bracketed(name) for name in sorted(names)]
    for item in (part.strip() for part in extra):
        if not item:
            continue
        hosts.append(item)
        if not _has_port(item):
            hosts.append(f"{item}:{bind.port}")
    return tuple(dict.fromkeys(host.lower() for host in hosts))


def _machine_names() -> set[str]:
    """This machine's host names and the addresses they resolve to."""
    names = {socket.gethostname(), socket.getfqdn()}
    for name in list(names):
        try:
            names |= {str(info[4][0]) for info in socket.getaddrinfo(name, None)}
        except OSError:
            continue
    return {name for name in names if name}


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def _has_port(host: str) -> bool:
    head, _, port = host.rpartition(":")
    return bool(head) and port.isdigit() and (not head.startswith("[") or head.endswith("]"))


class BearerTokenGate:
    """ASGI middleware: a request without ``Authorization: Bearer <token>`` (compared in
    constant time) is answered 401 with a ``WWW-Authenticate`` challenge before it reaches
    the MCP app; lifespan and the like pass through."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(Headers(scope=scope)):
            given = "authorization" in Headers(scope=scope)
            challenge = f'Bearer realm="{REALM}"' + (', error="invalid_token"' if given else "")
            response = PlainTextResponse(
                "unauthorized: send the server's token as Authorization: Bearer TOKEN",
                status_code=401,
                headers={"WWW-Authenticate": challenge},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, headers: Headers) -> bool:
        scheme, _, credentials = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(credentials.strip().encode(), self.token)


def http_app(server: MCPServer, access: HttpAccess) -> ASGIApp:
    """The server's streamable-HTTP app at ``/mcp`` with the Host/Origin checks of
    ``access`` and, if it has a token, the token gate in front."""
    app: ASGIApp = server.streamable_http_app(
        transport_security=access.transport_security(), host=access.bind.address
    )
    return BearerTokenGate(app, access.token) if access.token else app


def serve_http(server: MCPServer, access: HttpAccess) -> None:
    """Serve ``server`` over streamable HTTP on ``access.bind`` until the process is
    stopped."""
    import uvicorn

    config = uvicorn.Config(
        http_app(server, access),
        host=access.bind.address,
        port=access.bind.port,
        log_level="warning",
        server_header=False,
        proxy_headers=False,
    )
    uvicorn.Server(config).run()
