"""Bad input is one clear line on stderr, exit code 2, and nothing written to the out dir."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "out"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def doc_with(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "doc.txt"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("make_doc", "query", "expected"),
    [
        (lambda p: p / "missing.txt", "q", "document not found"),
        (lambda p: p, "q", "no documents in the folder"),
        (lambda p: doc_with(p, b"  \n\n"), "q", "is empty"),
        (lambda p: doc_with(p, b"GIF89a\x01\x00\x01\x00"), "q", "is a GIF image"),
        (lambda p: doc_with(p, b"\x89PNG\r\n\x1a\n\x00\x00\x00"), "q", "is a damaged image"),
        (lambda p: doc_with(p, "caf\u00e9".encode("latin-1")), "q", "not UTF-8"),
        (lambda p: doc_with(p, b"A real document."), "   ", "query is empty"),
    ],
)
def test_bad_document_or_query(
    tmp_path: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
    make_doc: Callable[[Path], Path],
    query: str,
    expected: str,
) -> None:
    doc = make_doc(tmp_path)
    code, stdout, stderr = run(
        ["run", "--provider", "offline", "--query", query, "--doc", str(doc), "--out", str(out)],
        capsys,
    )
    assert code == 2
    assert expected in stderr and stderr.count("\n") == 1 and stdout == ""
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--maxIters", "0"], "max_iters"),
        (["--max-iters", "zero"], "max_iters"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--mode", "poem"], "invalid choice"),
    ],
)
def test_bad_flags(
    tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    doc = doc_with(tmp_path, b"A real document with several words in it.")
    base = ["run", "--provider", "offline", "--query", "q", "--doc", str(doc), "--out", str(out)]
    code, _, stderr = run(base + args, capsys)
    assert code == 2
    assert expected in stderr and stderr.count("\n") == 1
    assert not out.exists()


def test_missing_keys_name_the_variable_and_offer_offline(
    tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_APIKEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    doc = doc_with(tmp_path, b"A real document with several words in it.")
    code, _, stderr = run(["run", "--query", "q", "--doc", str(doc), "--out", str(out)], capsys)
    assert code == 3
    assert "ANTHROPIC_API_KEY" in stderr and "--provider offline" in stderr
    assert not out.exists()
