"""One page over HTTP: every URL, redirects included, checked by the URL policy; redirects
followed within the site (a loop or an off-site hop is a failure), a size cap, a timeout, a
clear User-Agent, conditional GETs, and requests to one host spaced by the larger of the
configured delay and its robots.txt Crawl-delay."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx2

from ralph_tui.external.policy import AddressRefused, UrlPolicy, UrlRefused
from ralph_tui.external.urls import normalize, resolve, same_site
from ralph_tui.version import __version__

USER_AGENT = (
    f"ralph-tui/{__version__} (documentation crawler; +https://pypi.org/project/ralph-tui/)"
)
MAX_REDIRECTS = 5


class FetchFailed(Exception):
    """A page that could not be fetched; the message is the reason, for the page list.
    ``permanent``: the same answer is to be expected next time (a 404, not a timeout)."""

    def __init__(self, reason: str, *, permanent: bool = False) -> None:
        super().__init__(reason)
        self.permanent = permanent


@dataclass
class Fetched:
    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes = b""

    @property
    def not_modified(self) -> bool:
        return self.status == 304


@dataclass
class HostPacer:
    """Spaces the requests to each host by at least ``delay_s`` (or the host's own)."""

    delay_s: float
    host_delays: dict[str, float] = field(default_factory=dict)
    _next: dict[str, float] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    async def wait(self, host: str) -> None:
        lock = self._locks.setdefault(host, asyncio.Lock())
        async with lock:
            delay = max(self.delay_s, self.host_delays.get(host, 0.0))
            now = time.monotonic()
            start = max(now, self._next.get(host, 0.0))
            self._next[host] = start + delay
            if start > now:
                await asyncio.sleep(start - now)


class Fetcher:
    """GETs through ``client`` (the program's HTTP stack), counted in ``requests``; each URL
    checked by ``policy`` first (``client`` checks the connected address: see
    ``external.transport.policy_client``)."""

    def __init__(
        self,
        client: httpx2.AsyncClient,
        pacer: HostPacer,
        *,
        timeout_s: float,
        max_bytes: int,
        policy: UrlPolicy,
    ) -> None:
        self.client = client
        self.policy = policy
        self.pacer = pacer
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.requests = 0

    async def get(self, url: str, conditional: dict[str, str] | None = None) -> Fetched:
        """``url``'s response (a 304 when ``conditional`` headers match); ``FetchFailed``
        says why there is none."""
        seen = [url]
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            response = await self._once(current, conditional)
            if response.status not in (301, 302, 303, 307, 308):
                return Fetched(url, current, response.status, response.headers, response.body)
            target = resolve(current, response.headers.get("location", ""))
            if target is None:
                raise FetchFailed(f"HTTP {response.status} redirect without a usable Location")
            if not same_site(url, target):
                raise FetchFailed(f"redirects off the site, to {target}")
            if target in seen:
                raise FetchFailed(f"redirect loop ({' -> '.join([*seen, target])})")
            seen.append(target)
            current = target
        raise FetchFailed(f"more than {MAX_REDIRECTS} redirects")

    def check(self, url: str) -> None:
        """``FetchFailed`` for a URL the policy refuses without a lookup, or one the HTTP
        stack cannot send (a host no IDNA encoding takes): a page's link may be anything."""
        try:
            self.policy.check_url(url)
            httpx2.URL(url)
        except UrlRefused as exc:
            raise FetchFailed(str(exc)) from None
        except httpx2.InvalidURL as exc:
            raise FetchFailed(f"not a usable URL ({exc})", permanent=True) from None

    async def _once(self, url: str, conditional: dict[str, str] | None) -> Fetched:
        self.check(url)
        host = httpx2.URL(url).host
        await self.pacer.wait(host)
        headers = {"User-Agent": USER_AGENT, **(conditional or {})}
        self.requests += 1
        try:
            async with self.client.stream(
                "GET", url, headers=headers, timeout=self.timeout_s, follow_redirects=False
            ) as response:
                declared = int(response.headers.get("content-length") or 0)
                if declared > self.max_bytes:
                    raise FetchFailed(self._too_large(declared))
                body = bytearray()
                async for piece in response.aiter_bytes():
                    body += piece
                    if len(body) > self.max_bytes:
                        raise FetchFailed(self._too_large(len(body)))
                status = response.status_code
                kept = {k.lower(): v for k, v in response.headers.items()}
        except AddressRefused as exc:
            raise FetchFailed(self.policy.refused_at_connect(url, exc)) from None
        except httpx2.TimeoutException:
            raise FetchFailed(f"timed out after {self.timeout_s:g} s") from None
        except httpx2.ConnectError as exc:
            raise FetchFailed(f"cannot connect ({_reason(exc)})") from None
        except httpx2.HTTPError as exc:
            raise FetchFailed(f"network error ({_reason(exc)})") from None
        if status >= 400:
            raise FetchFailed(f"HTTP {status}", permanent=status < 500 and status not in (408, 429))
        return Fetched(normalize(url), normalize(url), status, kept, bytes(body))

    def _too_large(self, size: int) -> str:
        return f"larger than {self.max_bytes / 1e6:g} MB ({size / 1e6:.1f} MB or more)"


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
