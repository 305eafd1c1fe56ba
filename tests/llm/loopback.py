"""A scripted provider network served on 127.0.0.1, for runs that cannot be handed an
``httpx2`` mock transport: a run through the Python API, or in an MCP server's process.

The SDKs reach it through their base URLs, which name the host each request is meant for as
the first part of the path (``http://127.0.0.1:PORT/anthropic.test``); the handler gets the
request as it would behind ``httpx2.MockTransport``, with that host in its URL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

Handle = Callable[[httpx2.Request], httpx2.Response]


@dataclass(frozen=True)
class Loopback:
    """Where the scripted network listens, as base URLs for the settings."""

    url: str

    def base_url(self, host: str, path: str = "") -> str:
        """The base URL under which requests reach the handler as sent to ``host``."""
        return f"{self.url}/{host}{path}"

    @property
    def environment(self) -> dict[str, str]:
        """The keys and endpoints of a process whose generate role talks to ``anthropic.test``
        and validate role to ``openai.test`` (as ``tests.loops.test_sdk_run``'s do)."""
        return {
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "OPENAI_API_KEY": "sk-test",
            "ANTHROPIC_BASE_URL": self.base_url("anthropic.test"),
            "OPENAI_BASE_URL": self.base_url("openai.test", "/v1"),
        }


@contextmanager
def serving(handle: Handle) -> Iterator[Loopback]:
    """``handle`` answering on a free port of 127.0.0.1 until the block ends; one request at
    a time, as the scripts count turns."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            host, _, path = self.path.lstrip("/").partition("/")
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            request = httpx2.Request(
                "POST", f"http://{host}/{path}", headers=dict(self.headers), content=body
            )
            with lock:
                response = handle(request)
            content = response.read()
            self.send_response(response.status_code)
            self.send_header("content-type", response.headers.get("content-type", ""))
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            return None  # the handler's own records say what was asked

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Loopback(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
