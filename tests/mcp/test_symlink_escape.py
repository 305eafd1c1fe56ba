"""A root's symbolic links that lead outside it are not followed, through the MCP SDK's own
client over stdio: a link to a file or folder outside is left out with a note (the rest is
read), and a path that names only outside things is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.api import RunResult, SearchResult
from tests.mcp.test_stdio_server import call, connected

SECRET = "The vault combination is SWORDFISH-7734 and it opens the strongroom."
PASSWORD = "The strongroom vault combination, kept by the root account, is SWORDFISH-7734."
INSIDE = "The reservoir holds two days of supply. Filters are backwashed every 48 hours."
QUESTION = "What is the vault combination of the strongroom?"
OFFLINE = {"provider": "offline", "max_iters": 1}
LEAKED = "SWORDFISH"


def plant_links(tmp_path: Path) -> None:
    """``docs`` (the server's root, where ``connected`` puts the sample document too) with
    ``linkdir -> ../outside/sub`` and ``linkfile.txt -> ../outside/passwd``."""
    (tmp_path / "outside" / "sub").mkdir(parents=True)
    (tmp_path / "outside" / "sub" / "secret.txt").write_text(SECRET)
    (tmp_path / "outside" / "passwd").write_text(PASSWORD)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "plant.txt").write_text(INSIDE)
    (docs / "linkdir").symlink_to(Path("..") / "outside" / "sub")
    (docs / "linkfile.txt").symlink_to(Path("..") / "outside" / "passwd")


async def test_search_documents_reads_nothing_a_link_leads_to(tmp_path: Path) -> None:
    plant_links(tmp_path)
    async with connected(tmp_path) as client:
        given = {
            pattern: await client.call_tool(
                "search_documents", {"query": "vault combination strongroom", "paths": [pattern]}
            )
            for pattern in ("*/secret.txt", "**/*.txt", ".")
        }
    for pattern, result in given.items():
        assert LEAKED not in json.dumps(result.model_dump(mode="json")), pattern
    only_outside = given.pop("*/secret.txt")
    assert only_outside.is_error and len(only_outside.content) == 1
    refusal = only_outside.content[0].text  # type: ignore[union-attr]
    assert "linkdir leads outside the folders this server may read" in refusal
    assert "\n" not in refusal
    for pattern, result in given.items():
        searched = SearchResult.model_validate(result.structured_content)
        assert searched.passages and all("link" not in str(p.document) for p in searched.passages)
        assert any("linkfile.txt leads outside" in note for note in searched.notes), pattern


@pytest.mark.parametrize("pattern", ["*/secret.txt", "**/*.txt", "."])
async def test_ask_documents_answers_from_nothing_a_link_leads_to(
    tmp_path: Path, pattern: str
) -> None:
    plant_links(tmp_path)
    async with connected(tmp_path) as client:
        given = await client.call_tool(
            "ask_documents", {"question": QUESTION, "paths": [pattern], "settings": OFFLINE}
        )
        listed = await call(client, "list_sessions")
    assert LEAKED not in json.dumps(given.model_dump(mode="json"))
    if pattern == "*/secret.txt":
        assert given.is_error and "linkdir leads outside" in given.content[0].text  # type: ignore[union-attr]
        assert listed == {"result": []}, "nothing ran"
        return
    answer = RunResult.model_validate(given.structured_content)
    assert answer.session_id and all(e.document != "linkfile.txt" for e in answer.evidence)
    assert any("not read: " in n and "linkfile.txt leads outside" in n for n in answer.notes)
