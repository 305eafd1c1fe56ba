"""An MCP client's URLs are untrusted: a stand-in cloud metadata service on 127.0.0.1 is
never fetched, over stdio with the MCP SDK's own client or through the API, whatever the
spelling of its address, and a client cannot allow it with a setting."""

from __future__ import annotations

import json
from pathlib import Path

from ralph_tui import api
from ralph_tui.traces.store import TraceStore
from tests.external.site import Site, serve_site
from tests.mcp.test_stdio_server import OFFLINE, SAMPLE, call, connected, error_of

SECRET = "wJalrXUtnFEMI-K7MDENG-STAND-IN-SECRET"
QUESTION = "What is the SecretAccessKey of the IAM role?"


def metadata_service() -> Site:
    """Routes of a cloud metadata service's stand-in, with its secret."""
    return Site(
        "",
        {
            "/latest/meta-data/iam": (
                200,
                "text/plain; charset=utf-8",
                f"IAM role credentials. The SecretAccessKey of the IAM role is {SECRET}.".encode(),
            )
        },
    )


async def test_a_client_url_to_this_machine_is_never_fetched_over_stdio(tmp_path: Path) -> None:
    with serve_site() as metadata:
        metadata.routes = metadata_service().routes
        url = metadata.base + "/latest/meta-data/iam"
        async with connected(tmp_path) as client:
            answer = await call(
                client, "ask_documents", question=QUESTION, paths=[SAMPLE.name], urls=[url],
                settings=OFFLINE,
            )  # fmt: skip
            shown = await call(client, "show_session", session_id=answer["session_id"])
            allowed = await error_of(
                client, "ask_documents", question=QUESTION, paths=[SAMPLE.name], urls=[url],
                settings={**OFFLINE, "allow_local_docs": True},
            )  # fmt: skip
            prefixed = await error_of(
                client, "ask_documents", question=QUESTION, paths=[SAMPLE.name], urls=[url],
                settings={**OFFLINE, "allow_url_prefix": metadata.base + "/"},
            )  # fmt: skip
    assert metadata.requests == [], "the metadata stand-in got a request"
    assert SECRET not in json.dumps(answer) and SECRET not in json.dumps(shown)
    assert "allow_local_docs is the server's to set" in allowed
    assert "allow_url_prefix is the server's to set" in prefixed
    session = TraceStore(tmp_path / "out").load_session(answer["session_id"])
    [source] = session.model_extra["external"]["sources"]  # type: ignore[index]
    [failed] = source["failed"]
    assert failed["url"] == url
    assert failed["reason"].startswith(
        "refused by the URL policy: 127.0.0.1 is a loopback address; to fetch it, allow it with "
        "--allow-local-docs"
    )


async def test_no_spelling_of_a_loopback_address_is_fetched_through_the_api(
    tmp_path: Path,
) -> None:
    with serve_site() as metadata:
        metadata.routes = metadata_service().routes
        port = metadata.base.rsplit(":", 1)[1]
        hosts = ["127.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "localhost"]
        urls = [f"http://{host}:{port}/latest/meta-data/iam" for host in hosts]
        result = await api.arun(
            "qa", QUESTION, [SAMPLE], urls=urls, provider="offline", max_iters=1,
            out_dir=tmp_path / "out", embedder="offline",
        )  # fmt: skip
    assert metadata.requests == []
    assert SECRET not in result.model_dump_json()
    session = TraceStore(tmp_path / "out").load_session(result.session_id)
    sources = session.model_extra["external"]["sources"]  # type: ignore[index]
    reasons = [failed["reason"] for source in sources for failed in source["failed"]]
    assert len(reasons) == len(hosts)
    assert all(reason.startswith("refused by the URL policy: ") for reason in reasons)
