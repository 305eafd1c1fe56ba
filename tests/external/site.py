"""A documentation site on 127.0.0.1 for the crawler's tests: nested pages, a robots.txt
with a disallowed path and a Crawl-delay, an off-site link, redirects (one a loop), a PDF,
a table, a 404, a slow page, an image; ETags for conditional GETs; every request logged."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.documents.fixtures import pdf_bytes

PDF_TEXT = "The maintenance manual says pumps are greased every 500 hours."
TABLE_ROW = "Tokens expire after 3600 seconds"


def page(title: str, body: str, links: list[str]) -> bytes:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body><main>"
        f"<h1>{title}</h1><p>{body}</p><ul>{anchors}</ul></main></body></html>"
    ).encode()


def default_routes(robots: str) -> dict[str, tuple[int, str, bytes]]:
    html = "text/html; charset=utf-8"
    return {
        "/robots.txt": (200, "text/plain", robots.encode()),
        "/docs/": (
            200,
            html,
            page(
                "API Guide",
                "Start here. The guide covers authentication and rate limits in detail.",
                [
                    "a.html",
                    "b.html",
                    "/private/secret.html",
                    "https://elsewhere.test/x",
                    "moved",
                    "manual.pdf",
                    "table.html",
                    "missing.html",
                    "slow.html",
                    "logo.png",
                    "#top",
                ],
            ),
        ),
        "/docs/a.html": (
            200,
            html,
            page(
                "Authentication", "Clients send a bearer token with every request.", ["deep.html"]
            ),
        ),
        "/docs/b.html": (
            200,
            html,
            page("Rate limits", "Each key may send 50 requests a second.", []),
        ),
        "/docs/c.html": (200, html, page("Moved page", "This page was reached by a redirect.", [])),
        "/docs/deep.html": (200, html, page("Deep page", "Only a depth of two reaches here.", [])),
        "/docs/moved": (301, "text/plain", b"/docs/c.html"),
        "/docs/manual.pdf": (200, "application/pdf", pdf_bytes([[PDF_TEXT]])),
        "/docs/table.html": (
            200,
            html,
            b"<!doctype html><html><head><title>Limits table</title></head><body><main>"
            b"<h1>Limits table</h1><p>The limits of each plan are in this table for reference.</p>"
            b"<table><tr><th>Plan</th><th>Rule</th></tr><tr><td>Free</td><td>"
            + TABLE_ROW.encode()
            + b"</td></tr></table></main></body></html>",
        ),
        "/docs/logo.png": (200, "image/png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        "/private/secret.html": (200, html, page("Secret", "Robots say no.", [])),
        "/loop/1": (302, "text/plain", b"/loop/2"),
        "/loop/2": (302, "text/plain", b"/loop/1"),
        "/clean/": (
            200,
            html,
            page("Clean", "A small clean section of the site.", ["one.html", "gone.html"]),
        ),
        "/clean/one.html": (200, html, page("One", "The only page under clean.", [])),
    }


@dataclass
class Site:
    """The running site: its base URL, its routes (changeable), and the requests made."""

    base: str
    routes: dict[str, tuple[int, str, bytes]]
    requests: list[tuple[float, str, dict[str, str]]] = field(default_factory=list)
    slow_s: float = 2.0

    def paths(self) -> list[str]:
        return [path for _t, path, _h in self.requests]


@contextmanager
def serve_site(robots: str = "User-agent: *\nDisallow: /private/\n") -> Iterator[Site]:
    site = Site("", default_routes(robots))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.requests.append((time.monotonic(), self.path, dict(self.headers.items())))
            if self.path == "/docs/slow.html":
                time.sleep(site.slow_s)
            status, kind, body = site.routes.get(self.path, (404, "text/plain", b"not found"))
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if status == 200 and self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(status)
            if status in (301, 302):
                self.send_header("Location", body.decode())
                body = b""
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            if status == 200:
                self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    with serving(server):
        yield site


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[None]:
    """``server`` answering in a thread of its own until the block ends."""
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
