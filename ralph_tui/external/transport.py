"""The HTTP client external pages are fetched through, with the URL policy applied where
the connection is made: the host is resolved here, every address it resolves to is checked,
and the socket is opened to a checked address (never to the name again), so a name that
resolves to a refused address, at once or by DNS rebinding, gets no connection. TLS still
names the host (SNI, certificate check) and the ``Host`` header is the URL's.

URLs the user allowed by prefix go through a pool of their own, so a connection opened for
one of them is never reused for a URL the policy refuses. Environment proxies are not used:
a proxy would resolve the name itself, past the check.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import anyio
import httpcore2
import httpx2

from ralph_tui.external.policy import AddressRefused, IPAddress, UrlPolicy


async def resolve(host: str, port: int) -> list[IPAddress]:
    """The addresses ``host`` resolves to, in the resolver's order (an address as itself)."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


class CheckedBackend(httpcore2.AsyncNetworkBackend):
    """Opens TCP connections only to addresses ``policy`` allows."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                addresses = await resolve(host, port)
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"resolving {host} timed out") from None
        except OSError as exc:
            raise httpcore2.ConnectError(f"cannot resolve {host} ({exc})") from None
        if not addresses:
            raise httpcore2.ConnectError(f"{host} resolves to no address")
        allowed = [a for a in addresses if self.policy.rule_for(a) is None]
        if not allowed:
            first = addresses[0]
            raise AddressRefused(host, first, self.policy.rule_for(first) or "refused")
        failure: Exception | None = None
        for address in allowed:
            try:
                return await self._inner.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError("the URL policy allows no Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _transport(backend: httpcore2.AsyncNetworkBackend | None) -> httpx2.AsyncHTTPTransport:
    """httpx2's own transport (its request and response mapping, its error types) over a
    connection pool with ``backend``: httpx2 takes no network backend, so its pool is
    replaced by one built the same way."""
    transport = httpx2.AsyncHTTPTransport(trust_env=False)
    transport._pool = httpcore2.AsyncConnectionPool(
        ssl_context=httpx2.create_ssl_context(),
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=backend,
    )
    return transport


class PolicyTransport(httpx2.AsyncBaseTransport):
    """Sends a URL the user allowed by prefix as it is, and any other through connections
    to checked addresses only."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self._checked = _transport(CheckedBackend(policy))
        self._vouched = _transport(None)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        vouched = self.policy.vouched(str(request.url))
        transport = self._vouched if vouched else self._checked
        return await transport.handle_async_request(request)

    async def aclose(self) -> None:
        await self._checked.aclose()
        await self._vouched.aclose()


def policy_client(policy: UrlPolicy) -> httpx2.AsyncClient:
    """An HTTP client whose every connection obeys ``policy``."""
    return httpx2.AsyncClient(transport=PolicyTransport(policy), trust_env=False)
