"""What an offline embedder leaves in the process: a long-lived MCP server makes one per
index, so each must give back what it took. Measured in a fresh interpreter, with the
freed heap handed back, so only what is still held counts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_an_embedder_per_index_does_not_grow_the_process() -> None:
    script = textwrap.dedent(
        """
        from pathlib import Path
        from ralph_tui.mcp.slots import release_freed_memory
        from ralph_tui.retrieval.embedders import WordVectorEmbedder

        text = Path("ralph_tui/data/sample_document.md").read_text(encoding="utf-8")
        words = sorted(set(text.split()))

        def held_kb():
            release_freed_memory()
            for line in open("/proc/self/status"):
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])

        for _ in range(5):  # warm-up: the model, the tokenizer's caches
            WordVectorEmbedder().vocabulary_vectors(words)
        before = held_kb()
        for _ in range(40):
            WordVectorEmbedder().vocabulary_vectors(words)
        print((held_kb() - before) / 40)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    per_embedder_kb = float(done.stdout)
    assert per_embedder_kb < 100, f"each embedder kept {per_embedder_kb:.0f} KB"
