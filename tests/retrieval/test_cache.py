"""The index cache: reused for the same text, chunking and embedder; rebuilt when any
changes; a damaged file is rebuilt with a notice, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.embedders import WordVectorEmbedder
from tests.retrieval.helpers import index_of

TEXT = "The harbour master logs every ship that enters the bay. " * 40


async def test_a_second_open_loads_the_index_from_the_cache(tmp_path: Path) -> None:
    first = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    assert not first.figures.lexical_from_cache and not first.figures.vectors_from_cache
    second = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    assert second.figures.lexical_from_cache and second.figures.vectors_from_cache
    assert np.array_equal(first.chunks.starts, second.chunks.starts)
    assert first.vectors is not None and second.vectors is not None
    assert np.allclose(first.vectors, second.vectors)
    query = "harbour master"
    assert np.allclose(first.lexical.scores(query), second.lexical.scores(query))  # type: ignore[arg-type]


async def test_a_changed_text_or_chunking_builds_a_new_index(tmp_path: Path) -> None:
    await index_of(TEXT, cache=tmp_path)
    changed = await index_of(TEXT + " One more ship.", cache=tmp_path)
    rechunked = await index_of(TEXT, cache=tmp_path, chunking=Chunking(size=300, overlap=50))
    assert not changed.figures.lexical_from_cache and not rechunked.figures.lexical_from_cache
    assert len([p for p in tmp_path.iterdir() if not p.name.startswith(".")]) == 3


async def test_another_embedder_gets_vectors_of_its_own(tmp_path: Path) -> None:
    await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    other = WordVectorEmbedder()
    other.id = "another-embedder-256"
    again = await index_of(TEXT, embedder=other, cache=tmp_path)
    assert again.figures.lexical_from_cache and not again.figures.vectors_from_cache
    [folder] = list(tmp_path.iterdir())
    assert len(list(folder.glob("vectors-*.npy"))) == 2


async def test_a_damaged_cache_is_rebuilt_with_a_notice(tmp_path: Path) -> None:
    first = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    folder = Path(str(first.figures.cache_folder))
    (folder / "words.json").write_text("[not json", encoding="utf-8")
    [vectors] = folder.glob("vectors-*.npy")
    vectors.write_bytes(b"garbage")
    notices: list[str] = []
    again = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path, notices=notices)
    assert not again.figures.lexical_from_cache and not again.figures.vectors_from_cache
    assert any("is damaged" in n and "rebuilding" in n for n in notices), notices
    third = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    assert third.figures.lexical_from_cache and third.figures.vectors_from_cache


async def test_vectors_of_the_wrong_shape_are_rebuilt(tmp_path: Path) -> None:
    first = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    [vectors] = Path(str(first.figures.cache_folder)).glob("vectors-*.npy")
    np.save(vectors, np.zeros((3, 256), dtype=np.float32))
    notices: list[str] = []
    again = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path, notices=notices)
    assert again.figures.lexical_from_cache and not again.figures.vectors_from_cache
    assert any("vectors" in n and "damaged" in n for n in notices)


async def test_an_index_of_an_older_format_is_rebuilt_and_not_called_damaged(
    tmp_path: Path,
) -> None:
    first = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    folder = Path(str(first.figures.cache_folder))
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    (folder / "meta.json").write_text(json.dumps({**meta, "format": 1}), encoding="utf-8")
    notices: list[str] = []
    again = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path, notices=notices)
    assert not again.figures.lexical_from_cache
    assert any("older format" in n and "rebuilding" in n for n in notices), notices
    assert not any("damaged" in n for n in notices), notices


async def test_a_cache_file_past_the_json_bounds_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    """Deep nesting (a RecursionError) and a 400-digit number are a damaged cache too."""
    first = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path)
    folder = Path(str(first.figures.cache_folder))
    for damage in ("[" * 100_000 + "]" * 100_000, '["a", ' + "9" * 400 + "]"):
        (folder / "words.json").write_text(damage, encoding="utf-8")
        notices: list[str] = []
        again = await index_of(TEXT, embedder=WordVectorEmbedder(), cache=tmp_path, notices=notices)
        assert not again.figures.lexical_from_cache
        assert any("is damaged" in n for n in notices), notices
