"""``ralph-tui verify`` fetches a bundle's pages under the URL policy: a bundle from
someone else whose URL points at this machine gets no request from it, and says the page was
not checked and why; the user's flag lets a bundle of their own local docs server be checked
as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents.convert import converter_version
from ralph_tui.evidence import QuoteLocation
from ralph_tui.external.cache import content_hash
from ralph_tui.external.convert import convert_page
from ralph_tui.reports.bundle import BundleSource
from tests.external.site import serve_site
from tests.reports.bundles import make_bundle, write_bundle
from tests.reports.test_verify_api import PAGE_QUOTE, page_html

PATH = "/guide/auth.html"


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


def bundle_of(tmp_path: Path, url: str, body: bytes) -> Path:
    """A bundle whose one quote stands in the page at ``url``."""
    converted = convert_page(body, "text/html", url)
    start = converted.text.index(PAGE_QUOTE)
    source = BundleSource(
        name=url, kind="page", url=url, sha256=content_hash(body), format="html",
        converter=converter_version("html"), fetched_at=1.0,
    )  # fmt: skip
    quote = QuoteLocation(
        number=1, text=PAGE_QUOTE, found="exact", source=url, url=url, start=start,
        end=start + len(PAGE_QUOTE), fetched_at=1.0,
    )  # fmt: skip
    return write_bundle(tmp_path / "bundle.json", make_bundle([source], [quote]))


def verify_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bundle: Path, *flags: str
) -> tuple[int, dict[str, Any]]:
    code = run_cli(["verify", str(bundle), "--json", "--out", str(tmp_path / "out"), *flags])
    return code, json.loads(capsys.readouterr().out)


def test_a_bundle_url_to_this_machine_is_not_fetched_and_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = page_html(PAGE_QUOTE)
    with serve_site() as site:
        site.routes = {PATH: (200, "text/html; charset=utf-8", body)}
        url = site.base + PATH
        code, report = verify_json(tmp_path, capsys, bundle_of(tmp_path, url, body))
        assert site.requests == [], "verify fetched a page on this machine"
    [source] = report["sources"]
    [quote] = report["quotes"]
    assert code == 1
    assert source["status"] == "not_checked" and source["url"] == url
    assert source["detail"] == (
        "fetching it failed: refused by the URL policy: 127.0.0.1 is a loopback address; to "
        f"fetch it, allow it with --allow-local-docs (a docs server on this machine) or "
        f"--allow-url-prefix {site.base}/"
    )
    assert quote["status"] == "not_checked"


def test_the_users_flag_lets_their_local_docs_be_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = page_html(PAGE_QUOTE)
    with serve_site() as site:
        site.routes = {PATH: (200, "text/html; charset=utf-8", body)}
        url = site.base.replace("127.0.0.1", "localhost") + PATH
        bundle = bundle_of(tmp_path, url, body)
        code, report = verify_json(tmp_path, capsys, bundle, "--allow-local-docs")
        prefixed, _ = verify_json(tmp_path, capsys, bundle, "--allow-url-prefix", url)
        assert site.paths() == [PATH, PATH]
    [quote] = report["quotes"]
    assert code == 0 and prefixed == 0 and quote["status"] == "holds"
