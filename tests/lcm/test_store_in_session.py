"""Each agent's whole conversation is kept in the session folder, one JSON line a message,
and loads back as it was."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.config import Settings
from ralph_tui.lcm.store import MessageStore
from ralph_tui.loops.runner import RunRequest, execute_run

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


async def test_the_worker_conversation_is_kept_in_the_session_folder(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, out_dir=tmp_path / "out", provider="offline", max_iters=1)  # type: ignore[call-arg]
    outcome = await execute_run(
        RunRequest(mode="qa", query="How often are the filters backwashed?", doc_path=SAMPLE,
                   settings=settings),
        on_event=lambda _e: None,
    )  # fmt: skip
    folder = settings.out_dir / "sessions" / outcome.session_id
    store = MessageStore.load(folder / "context-01-worker.jsonl")
    roles = [m.role for m in store.messages]
    assert roles[0] == "user" and "assistant" in roles and "tool" in roles
    assert [m.id for m in store.messages] == list(range(len(store)))
    assert "How often are the filters backwashed?" in store.messages[0].content
    assert all(m.tokens > 0 for m in store.messages)


def test_a_torn_last_line_is_dropped_on_load(tmp_path: Path) -> None:
    from ralph_tui.llm.types import ChatMessage

    path = tmp_path / "context.jsonl"
    store = MessageStore(path)
    store.append(ChatMessage(role="user", content="one"))
    store.append(ChatMessage(role="assistant", content="two"))
    with path.open("a", encoding="utf-8") as file:
        file.write('{"id": 2, "role": "us')
    loaded = MessageStore.load(path)
    assert [m.content for m in loaded.messages] == ["one", "two"]
