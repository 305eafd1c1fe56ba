"""The URL policy on the crawler, through ``ralph-tui external refresh`` against real servers
on 127.0.0.1: a link or a redirect to another port is not followed, a name that resolves to
a loopback address is refused when the connection is made (DNS rebinding), one flag lets a
documentation server on this machine be crawled as before, and HTTPS still names the host
(SNI, certificate, Host) while connecting to the address that was checked."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.external.fetch import Fetcher, FetchFailed, HostPacer
from ralph_tui.external.policy import UrlPolicy
from ralph_tui.external.transport import policy_client
from tests.external.site import Site, page, serve_site
from tests.external.tls_site import serve_tls

HTML = "text/html; charset=utf-8"
SECRET = "AKIA-STAND-IN-SECRET-7f3a"


@pytest.fixture
def other() -> Iterator[Site]:
    """A second service on this machine, on another port: it must get no request."""
    with serve_site() as running:
        running.routes = {"/secret": (200, HTML, page("Secret", SECRET, []))}
        yield running


def refresh(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = run_cli(["external", "refresh", *args, "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_a_link_or_redirect_to_another_port_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], other: Site
) -> None:
    port = other.base.rsplit(":", 1)[1]
    with serve_site() as site:
        site.routes["/docs/"] = (
            200,
            HTML,
            page(
                "Docs",
                "An allowed section of a site on this machine.",
                [
                    f"http://127.0.0.1:{port}/secret",
                    f"http://localhost:{port}/secret",
                    "/docs/hop",
                    "/docs/a.html",
                    "/admin",
                ],
            ),
        )
        site.routes["/docs/hop"] = (302, "text/plain", f"http://127.0.0.1:{port}/secret".encode())
        site.routes["/admin"] = (200, HTML, page("Admin", "Outside the allowed prefix.", []))
        out = refresh(
            tmp_path, capsys, site.base + "/docs/", "--allow-url-prefix", site.base + "/docs/"
        )
        asked = site.paths()
    assert other.requests == [], "the other port got a request"
    assert "/admin" not in asked and "/docs/a.html" in asked and "/robots.txt" in asked
    assert f"failed: {site.base}/docs/hop: redirects off the site" in out
    assert f"failed: {site.base}/admin: refused by the URL policy: 127.0.0.1 is a loopback" in out
    assert SECRET not in out


def test_a_name_that_resolves_to_loopback_is_refused_at_connect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups = rebind(monkeypatch, "docs.rebind.test", "127.0.0.1")
    with serve_site() as site:
        url = site.base.replace("127.0.0.1", "docs.rebind.test") + "/docs/"
        out = refresh(tmp_path, capsys, url, "--crawlDepth", "0")
    assert site.requests == [], "the loopback server got a request"
    assert lookups, "the name was looked up (at connect time), not judged by its spelling"
    assert (
        f"failed: {url}: refused by the URL policy: docs.rebind.test resolves to 127.0.0.1, a "
        "loopback address; to fetch it, allow it with --allow-local-docs" in out
    )
    assert "no external documentation was used: the URL policy refused every URL given" in out


def test_a_local_docs_server_works_with_one_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_site() as site:
        site.slow_s = 0.0
        url = site.base.replace("127.0.0.1", "localhost") + "/clean/"
        refused = refresh(tmp_path / "a", capsys, url)
        assert site.requests == [] and "refused by the URL policy" in refused
        out = refresh(tmp_path / "b", capsys, url, "--allow-local-docs")
        assert "/clean/one.html" in site.paths()
        lookups = rebind(monkeypatch, "docs.rebind.test", "127.0.0.1")
        before = len(site.requests)
        named = site.base.replace("127.0.0.1", "docs.rebind.test") + "/clean/"
        refresh(tmp_path / "c", capsys, named, "--allow-local-docs", "--crawlDepth", "0")
        hosts = [headers["Host"] for _t, _p, headers in site.requests[before:]]
    assert f"{url}: 2 pages, 2 downloaded" in out
    port = site.base.rsplit(":", 1)[1]
    assert hosts == [f"docs.rebind.test:{port}"] * 2, "the Host header is the URL's"
    assert len(lookups) == len(hosts), "one lookup a connection: the socket goes to that address"


def test_a_url_the_http_stack_cannot_send_fails_without_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://\uff11\uff12\uff17.0.0.1:9/latest/meta-data/"
    out = refresh(tmp_path, capsys, url)
    assert f"failed: {url}: not a usable URL (Invalid IDNA hostname" in out


async def test_of_the_addresses_of_a_name_only_an_allowed_one_is_connected_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rebind(monkeypatch, "mixed.test", "10.255.255.1", "127.0.0.1")
    local = UrlPolicy(allow_loopback=True)
    with serve_site() as site:
        url = site.base.replace("127.0.0.1", "mixed.test") + "/docs/a.html"
        async with policy_client(local) as client:
            fetcher = Fetcher(client, HostPacer(0.0), timeout_s=2.0, max_bytes=10**6, policy=local)
            fetched = await fetcher.get(url)
    assert fetched.status == 200 and site.paths() == ["/docs/a.html"]


def rebind(monkeypatch: pytest.MonkeyPatch, name: str, *addresses: str) -> list[str]:
    """``name`` resolves to ``addresses`` (as an attacker's DNS would answer); the list of
    its lookups grows with each."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in (name, name.encode()):
            lookups.append(name)
            return [info for address in addresses for info in real(address, port, *args, **kwargs)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


async def test_https_names_the_host_while_connecting_to_the_checked_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = page("Docs", "Served over TLS to its name.", [])
    lookups = rebind(monkeypatch, "docs.tls.test", "127.0.0.1")
    with serve_tls("docs.tls.test", tmp_path, body) as site:
        monkeypatch.setenv("SSL_CERT_FILE", str(site.ca_file))
        url = f"https://docs.tls.test:{site.port}/docs/"
        for policy in (UrlPolicy(), UrlPolicy(allow_loopback=True)):
            async with policy_client(policy) as client:
                fetcher = Fetcher(
                    client, HostPacer(0.0), timeout_s=5.0, max_bytes=10**6, policy=policy
                )
                try:
                    fetched = await fetcher.get(url)
                except FetchFailed as exc:
                    refused = str(exc)
    assert refused.startswith("refused by the URL policy: docs.tls.test resolves to 127.0.0.1")
    assert fetched.status == 200 and fetched.body == body
    assert site.server_names == ["docs.tls.test"], "one handshake, with the name as its SNI"
    assert site.hosts == [f"docs.tls.test:{site.port}"]
    assert lookups == ["docs.tls.test"] * 2
