"""Compaction: the summarizer's prompt, the budget on its answer, and the file swap."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ralph_tui.memory.compaction import (
    build_compaction_prompt,
    compact_memory,
    enforce_budget,
    maybe_compact,
)
from ralph_tui.memory.context_file import append_memory, read_memory, read_summary
from ralph_tui.memory.episodes import EpisodeStore

NOW = datetime(2026, 3, 1, tzinfo=UTC)


class FakeSummarizer:
    """Records every prompt and answers with a fixed text."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer


def fill(store: EpisodeStore, mem_path: Path, count: int) -> None:
    for iteration in range(1, count + 1):
        update = f"Finding {iteration}: the budget is {1000 + iteration} characters."
        store.append(
            {
                "iteration": iteration,
                "task": "Explain the memory system",
                "brief": f"brief {iteration}",
                "output": f"output {iteration}",
                "memoryUpdate": update,
            },
            now=NOW,
        )
        append_memory(mem_path, update, iteration, now=NOW)


def test_the_prompt_holds_the_budget_the_earlier_summary_and_every_episode() -> None:
    episodes = [
        {"iteration": 1, "task": "T", "brief": "B1", "output": "O1", "memoryUpdate": "M1"},
        {"iteration": 2, "task": "T", "brief": "B2", "output": "O2", "validation": {"ok": True}},
    ]
    prompt = build_compaction_prompt(episodes, 900, previous_summary="Known: X.")
    assert "one summary of at most 900 characters" in prompt
    assert "Earlier summary:\nKnown: X." in prompt
    assert "Episode 1 (1):\nTask: T\nBrief: B1\nOutput: O1\nMemory update: M1" in prompt
    assert 'Episode 2 (2):\nTask: T\nBrief: B2\nOutput: O2\nValidation: {"ok": true}' in prompt


def test_long_episode_fields_are_clipped_in_the_prompt() -> None:
    prompt = build_compaction_prompt([{"brief": "b" * 5000}], 500)
    assert "b" * 1199 + "…" in prompt
    assert "b" * 1200 not in prompt


def test_a_summary_within_budget_is_kept_as_is() -> None:
    assert enforce_budget("  Short summary.  ", 100) == "Short summary."


def test_an_overlong_summary_is_cut_at_a_sentence_end() -> None:
    text = "First fact is here. Second fact is here. Third fact runs on and on."
    assert enforce_budget(text, 45) == "First fact is here. Second fact is here."


def test_an_overlong_summary_is_cut_at_a_line_end() -> None:
    text = "- first fact, no stop\n- second fact, no stop\n- third fact, no stop"
    assert enforce_budget(text, 50) == "- first fact, no stop\n- second fact, no stop"


def test_without_a_usable_boundary_the_cut_falls_on_a_word_with_an_ellipsis() -> None:
    text = "word " * 40
    cut = enforce_budget(text, 50)
    assert len(cut) <= 50
    assert cut.endswith("word…")


async def test_compact_memory_enforces_the_budget_on_the_model_answer() -> None:
    summarize = FakeSummarizer("A sentence that fits. " * 20)
    summary = await compact_memory([{"memoryUpdate": "m"}], 100, summarize)
    assert len(summary) <= 100
    assert summary.endswith("fits.")
    assert len(summarize.prompts) == 1


async def test_below_the_threshold_nothing_happens(tmp_path: Path) -> None:
    store, mem_path = EpisodeStore(tmp_path), tmp_path / "context.md"
    fill(store, mem_path, 5)
    before = read_memory(mem_path)
    summarize = FakeSummarizer("unused")
    assert not await maybe_compact(store, mem_path, threshold=6, summarize=summarize)
    assert summarize.prompts == []
    assert read_memory(mem_path) == before
    assert store.count() == 5


async def test_at_the_threshold_the_summary_replaces_the_blocks_and_the_log_rotates(
    tmp_path: Path,
) -> None:
    store, mem_path = EpisodeStore(tmp_path), tmp_path / "context.md"
    fill(store, mem_path, 6)
    summarize = FakeSummarizer("Budgets grow by one per iteration; six findings so far.")
    compacted = await maybe_compact(
        store, mem_path, threshold=6, budget_chars=1500, summarize=summarize, now=NOW
    )
    assert compacted
    assert read_memory(mem_path) == (
        "## Summary - 2026-03-01T00:00:00+00:00\n"
        "Budgets grow by one per iteration; six findings so far.\n"
    )
    assert store.count() == 0
    assert store.archives() == [tmp_path / "episodes-1.jsonl"]
    assert all(f"Finding {n}:" in summarize.prompts[0] for n in range(1, 7))


async def test_an_overshooting_summary_is_held_to_the_memory_budget(tmp_path: Path) -> None:
    store, mem_path = EpisodeStore(tmp_path), tmp_path / "context.md"
    fill(store, mem_path, 3)
    summarize = FakeSummarizer("This finding is established. " * 100)
    assert await maybe_compact(
        store, mem_path, threshold=3, budget_chars=300, summarize=summarize, now=NOW
    )
    text = read_memory(mem_path)
    assert len(text) <= 300
    assert text.endswith("established.\n")
    assert "at most 260 characters" in summarize.prompts[0]


async def test_the_earlier_summary_is_folded_into_the_next_one(tmp_path: Path) -> None:
    store, mem_path = EpisodeStore(tmp_path), tmp_path / "context.md"
    fill(store, mem_path, 2)
    await maybe_compact(store, mem_path, threshold=2, summarize=FakeSummarizer("First summary."))
    fill(store, mem_path, 2)
    second = FakeSummarizer("Second summary.")
    assert await maybe_compact(store, mem_path, threshold=2, summarize=second)
    assert "Earlier summary:\nFirst summary." in second.prompts[0]
    assert read_summary(mem_path) == "Second summary."
    assert len(store.archives()) == 2


async def test_an_empty_summary_changes_nothing(tmp_path: Path) -> None:
    store, mem_path = EpisodeStore(tmp_path), tmp_path / "context.md"
    fill(store, mem_path, 2)
    before = read_memory(mem_path)
    assert not await maybe_compact(store, mem_path, threshold=2, summarize=FakeSummarizer("  "))
    assert read_memory(mem_path) == before
    assert store.count() == 2
