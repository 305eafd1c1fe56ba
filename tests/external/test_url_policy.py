"""The URL policy's rules: which addresses are refused (IPv4 and IPv6, IPv4 inside IPv6,
the odd spellings a resolver accepts), what the user's prefixes allow, what "the same site"
is, and the one line a refusal is."""

from __future__ import annotations

import ipaddress

import pytest

from ralph_tui.config import SettingsError, load_settings
from ralph_tui.external.policy import (
    REFUSED,
    Prefix,
    UrlPolicy,
    UrlRefused,
    address_rule,
    literal_address,
)
from ralph_tui.external.urls import same_site


@pytest.mark.parametrize(
    ("address", "rule"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:7f00:1", "loopback"),
        ("64:ff9b::7f00:1", "loopback"),
        ("2002:7f00:1::", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "unspecified"),
        ("::", "unspecified"),
        ("::ffff:0.0.0.0", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("::ffff:169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("2001:db8::1", "private"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("::127.0.0.1", "reserved"),
        ("100.64.0.1", "non-public"),
    ],
)
def test_addresses_that_are_not_public_are_refused_by_their_rule(address: str, rule: str) -> None:
    assert address_rule(ipaddress.ip_address(address)) == rule


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"])
def test_public_addresses_pass(address: str) -> None:
    assert address_rule(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("[::1]", "::1"),
        ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
        ("example.com", None),
        ("0xexample.com", None),
        ("1e100.net", None),
    ],
)
def test_every_spelling_of_an_address_is_read_as_a_resolver_reads_it(
    host: str, address: str | None
) -> None:
    found = literal_address(host)
    assert (str(found) if found else None) == address


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/latest/meta-data/iam",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f.1:9/",
        "http://0177.0.0.1/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost:3000/",
        "http://LOCALHOST./",
        "http://api.localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0:8000/",
        "http://10.0.0.5/docs/",
        "http://[fe80::1]/",
    ],
)
def test_a_url_naming_such_an_address_is_refused_without_a_lookup(url: str) -> None:
    with pytest.raises(UrlRefused, match=f"^{REFUSED}: "):
        UrlPolicy().check_url(url)


def test_a_refusal_names_the_address_the_rule_and_how_to_allow_it() -> None:
    with pytest.raises(UrlRefused) as loopback:
        UrlPolicy().check_url("http://2130706433:8000/x")
    assert str(loopback.value) == (
        "refused by the URL policy: 127.0.0.1 is a loopback address; to fetch it, allow it "
        "with --allow-local-docs (a docs server on this machine) or --allow-url-prefix "
        "http://2130706433:8000/"
    )
    with pytest.raises(UrlRefused) as mapped:
        UrlPolicy().check_url("http://[::ffff:169.254.169.254]/latest")
    assert str(mapped.value) == (
        "refused by the URL policy: ::ffff:a9fe:a9fe (IPv4 169.254.169.254) is a link-local "
        "address; to fetch it, allow it with --allow-url-prefix http://[::ffff:169.254.169.254]/"
    )


def test_local_docs_allow_loopback_and_nothing_else() -> None:
    local = UrlPolicy(allow_loopback=True)
    for url in ("http://localhost:8000/", "http://127.0.0.1:9/", "http://[::1]/"):
        local.check_url(url)
    for url in ("http://0.0.0.0:8000/", "http://10.0.0.1/", "http://169.254.169.254/"):
        with pytest.raises(UrlRefused):
            local.check_url(url)


def test_a_prefix_allows_the_urls_under_it_on_its_exact_origin() -> None:
    policy = UrlPolicy(prefixes=(Prefix.parse("http://127.0.0.1:8000/docs/"),))  # type: ignore[arg-type]
    assert policy.vouched("http://127.0.0.1:8000/docs/a.html")
    policy.check_url("http://127.0.0.1:8000/docs/a.html")
    for url in (
        "http://127.0.0.1:8000/admin",
        "http://127.0.0.1:8001/docs/",
        "https://127.0.0.1:8000/docs/",
        "http://localhost:8000/docs/",
        "http://127.0.0.1:8000@169.254.169.254/docs/",
        "http://127.0.0.1:8000/docs/../admin",
        "http://127.0.0.1:8000/docs/%2e%2e/admin",
        "http://127.0.0.1:8000/docs/..%2Fadmin",
        "http://127.0.0.1:8000/docs/..\\admin",
    ):
        assert not policy.vouched(url), url
        with pytest.raises(UrlRefused):
            policy.check_url(url)


def test_the_prefixes_come_from_the_settings_and_a_bad_one_is_refused() -> None:
    settings = load_settings(
        {
            "allow_url_prefix": "http://10.0.0.5:8080/docs/,https://intranet.test/",
            "allow_local_docs": True,
        }
    )
    policy = UrlPolicy.of(settings)
    assert policy.allow_loopback
    assert policy.vouched("http://10.0.0.5:8080/docs/x") and policy.vouched(
        "https://intranet.test/a"
    )
    with pytest.raises(SettingsError, match="not an http"):
        load_settings({"allow_url_prefix": "ftp://10.0.0.5/"})
    with pytest.raises(SettingsError, match="not an http"):
        load_settings({"allow_url_prefix": "10.0.0.5"})


@pytest.mark.parametrize(
    ("base", "other", "same"),
    [
        ("http://127.0.0.1:8000/docs/", "http://127.0.0.1:8000/other", True),
        ("http://127.0.0.1:8000/docs/", "http://127.0.0.1:8001/", False),
        ("http://127.0.0.1:8000/docs/", "http://localhost:8000/", False),
        ("https://docs.test/", "https://docs.test:443/a", True),
        ("https://docs.test/", "https://docs.test:8443/a", False),
        ("https://docs.test/", "http://docs.test/a", False),
        ("http://docs.test/", "https://docs.test/a", True),
        ("https://www.docs.test/", "https://docs.test/a", True),
        ("https://docs.test/", "https://evil.test/", False),
    ],
)
def test_the_same_site_is_the_same_scheme_host_and_port(base: str, other: str, same: bool) -> None:
    assert same_site(base, other) is same
