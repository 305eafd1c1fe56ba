"""The episode log: one JSON line per iteration, tolerant reads, rotation into archives."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from ralph_tui.memory.episodes import EpisodeStore

NOW = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def episode(iteration: int) -> dict[str, object]:
    return {
        "iteration": iteration,
        "task": "Summarize the design",
        "brief": "The brief “with” quotes",
        "output": f"output {iteration}",
        "memoryUpdate": f"finding {iteration}",
        "validation": {"ok": False, "rules": ["evidence_linkage"]},
    }


def test_each_episode_is_one_json_line_with_a_timestamp(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path)
    record = store.append(episode(1), now=NOW)
    lines = (tmp_path / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == record
    assert record["timestamp"] == "2026-03-01T09:30:00+00:00"
    assert "“with”" in lines[0]


def test_a_given_timestamp_is_kept(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path)
    store.append({**episode(1), "timestamp": "earlier"})
    assert store.load()[0]["timestamp"] == "earlier"


def test_load_and_count_return_the_episodes_in_order(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path)
    for iteration in (1, 2, 3):
        store.append(episode(iteration), now=NOW)
    assert [item["iteration"] for item in store.load()] == [1, 2, 3]
    assert store.count() == 3


def test_an_empty_store_has_no_episodes(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path / "not-yet")
    assert store.load() == []
    assert store.count() == 0
    assert store.rotate() is None


def test_a_line_torn_by_a_crash_is_skipped(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path)
    store.append(episode(1), now=NOW)
    with (tmp_path / "episodes.jsonl").open("a") as handle:
        handle.write('{"iteration": 2, "tas')
    store.append(episode(3), now=NOW)
    assert [item["iteration"] for item in store.load()] == [1, 3]


def test_rotate_archives_the_log_under_the_next_free_number(tmp_path: Path) -> None:
    store = EpisodeStore(tmp_path)
    store.append(episode(1), now=NOW)
    first = store.rotate()
    assert first == tmp_path / "episodes-1.jsonl"
    assert store.count() == 0
    store.append(episode(2), now=NOW)
    second = store.rotate()
    assert second == tmp_path / "episodes-2.jsonl"
    assert store.archives() == [first, second]
    assert json.loads(second.read_text())["iteration"] == 2


def test_rotate_counts_on_from_the_highest_archive(tmp_path: Path) -> None:
    (tmp_path / "episodes-9.jsonl").write_text("")
    (tmp_path / "episodes-10.jsonl").write_text("")
    store = EpisodeStore(tmp_path)
    store.append(episode(1), now=NOW)
    assert store.rotate() == tmp_path / "episodes-11.jsonl"
