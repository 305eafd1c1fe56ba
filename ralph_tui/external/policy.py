"""The URL policy: where the crawler and ``verify`` may connect. A page's links and
redirects, an MCP client's URLs and a bundle's URLs are untrusted, so by default only public
addresses are fetched: loopback, private, link-local, multicast, reserved and unspecified
addresses (IPv4 and IPv6, IPv4 inside IPv6 included) are refused, each refusal one line
that names the address, the rule and the setting that allows it. The user may allow a
documentation server on this machine (``--allow-local-docs``) or URLs under given prefixes
(``--allow-url-prefix``).

This module holds the rules; ``external.transport`` applies them to the address each
connection is actually made to (so a name that resolves to a refused address, DNS rebinding
included, is refused too), and ``check_url`` refuses what can be judged without a lookup
(an address written in the URL, ``localhost``) before any cache or request.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from ralph_tui.config import Settings, setting_specs

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
LOOPBACK = "loopback"
ROBOTS_TXT = "/robots.txt"
REFUSED = "refused by the URL policy"
"""How every refusal line starts."""
_NUMERIC_V4 = re.compile(r"[0-9][0-9a-fA-FxX.]*")


class UrlRefused(Exception):
    """A URL the policy refuses; the message is the one line that says why and how to
    allow it."""


class AddressRefused(Exception):
    """Raised at connect time: every address ``host`` resolves to is refused (``address``
    the first, by ``rule``). Not an ``httpcore2`` error, so it reaches the fetcher as itself,
    never as a mere connection failure."""

    def __init__(self, host: str, address: IPAddress, rule: str) -> None:
        super().__init__(f"{host} resolves to {shown(address)}, {_article(rule)} {rule} address")
        self.host = host
        self.address = address
        self.rule = rule


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (IPv4-mapped, 6to4, Teredo, NAT64), if any:
    a connection to it may reach that IPv4 host."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_rule(address: IPAddress) -> str | None:
    """The rule that refuses ``address`` by default (``"loopback"``, ``"private"``...),
    or ``None`` for a public address."""
    address = embedded_ipv4(address) or address
    if address.is_unspecified or address in THIS_NETWORK:
        return "unspecified"
    if address.is_loopback:
        return LOOPBACK
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:
        return "reserved"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "non-public"
    return None


def shown(address: IPAddress) -> str:
    """``address`` for a message, with the IPv4 address it stands for, if any."""
    inner = embedded_ipv4(address)
    return f"{address} (IPv4 {inner})" if inner is not None else str(address)


def literal_address(host: str) -> IPAddress | None:
    """``host`` as an IP address when it is one, in any spelling a resolver takes as one:
    ``[::1]``, ``127.1``, ``2130706433``, ``0x7f.1``, ``0177.0.0.1``."""
    bare = host.strip("[]")
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if _NUMERIC_V4.fullmatch(bare):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(bare))
        except OSError:
            return None
    return None


def is_loopback_name(host: str) -> bool:
    """``localhost`` and the names under it, which resolve to this machine (RFC 6761)."""
    name = host.rstrip(".").lower()
    return name == "localhost" or name.endswith(".localhost")


@dataclass(frozen=True)
class Origin:
    """Scheme, host and port of a URL: what "the same site" compares."""

    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: str) -> Origin | None:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").rstrip(".").lower()
        if scheme not in DEFAULT_PORTS or not host:
            return None
        return cls(scheme, host, port if port is not None else DEFAULT_PORTS[scheme])

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{host}{port}/"


@dataclass(frozen=True)
class Prefix:
    """An allowed URL prefix: its origin exact, then the start of the path."""

    origin: Origin
    path: str

    @classmethod
    def parse(cls, text: str) -> Prefix | None:
        origin = Origin.of(text.strip())
        if origin is None:
            return None
        return cls(origin, urlsplit(text.strip()).path or "/")

    def matches(self, url: str) -> bool:
        """Whether ``url`` is under the prefix, or is its origin's robots.txt (read so the
        crawl of an allowed section honours it)."""
        if Origin.of(url) != self.origin:
            return False
        path = urlsplit(url).path or "/"
        if _climbs(path):
            return False
        return path.startswith(self.path) or path == ROBOTS_TXT


def _climbs(path: str) -> bool:
    """Whether ``path`` may lead a server out of a prefix: a ``.`` or ``..`` segment, or a
    slash, backslash or dot written as an escape (a server may decode it before it routes)."""
    segments = path.split("/")
    escaped = any(code in path.lower() for code in ("%2e", "%2f", "%5c", "\\"))
    return escaped or "." in segments or ".." in segments


@dataclass(frozen=True)
class UrlPolicy:
    """Where fetches may go: public addresses, plus loopback with ``allow_loopback``, plus
    any address for a URL under one of ``prefixes``."""

    prefixes: tuple[Prefix, ...] = ()
    allow_loopback: bool = False

    @classmethod
    def of(cls, settings: Settings) -> UrlPolicy:
        given = (settings.allow_url_prefix or "").split(",")
        prefixes = tuple(p for text in given if text.strip() and (p := Prefix.parse(text)))
        return cls(prefixes, settings.allow_local_docs)

    def vouched(self, url: str) -> bool:
        """Whether the user allowed ``url`` by prefix (then its address is not checked)."""
        return any(prefix.matches(url) for prefix in self.prefixes)

    def rule_for(self, address: IPAddress) -> str | None:
        """The rule that refuses ``address`` under this policy, or ``None``."""
        rule = address_rule(address)
        if rule == LOOPBACK and self.allow_loopback:
            return None
        return rule

    def check_url(self, url: str) -> None:
        """``UrlRefused`` for ``url`` when what it names is refused without a lookup: an
        address written in it (in any spelling), or ``localhost``. A name is checked by the
        transport against each address it resolves to."""
        if self.vouched(url):
            return
        host = urlsplit(url).hostname or ""
        if is_loopback_name(host) and not self.allow_loopback:
            raise UrlRefused(self.refusal(url, f"{host} is a {LOOPBACK} name", LOOPBACK))
        address = literal_address(host)
        if address is not None and (rule := self.rule_for(address)) is not None:
            what = f"{shown(address)} is {_article(rule)} {rule} address"
            raise UrlRefused(self.refusal(url, what, rule))

    def refused_at_connect(self, url: str, refused: AddressRefused) -> str:
        """The line for ``url`` whose host resolved only to refused addresses."""
        return self.refusal(url, str(refused), refused.rule)

    def refusal(self, url: str, what: str, rule: str) -> str:
        """One line: what was refused and by which rule, and the flag that allows it."""
        prefix_flag, local_flag = _flag("allow_url_prefix"), _flag("allow_local_docs")
        origin = Origin.of(url)
        allow_prefix = f"{prefix_flag} {origin}" if origin else prefix_flag
        how = f"{local_flag} (a docs server on this machine) or {allow_prefix}"
        return f"{REFUSED}: {what}; to fetch it, allow it with " + (
            how if rule == LOOPBACK else allow_prefix
        )


def _flag(name: str) -> str:
    return setting_specs()[name].flags[0]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"
