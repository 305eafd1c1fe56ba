"""``estimate`` / ``aestimate`` in the Python API: a typed estimate, no key, no network, and
nothing created in the out dir."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from ralph_tui import RunEstimate, aestimate, estimate
from ralph_tui.documents import InputError
from ralph_tui.evals.needle import HANDBOOK


def no_socket(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the estimate opened a socket")


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "docs" / "handbook.md"
    path.parent.mkdir()
    path.write_text(HANDBOOK.read_text(encoding="utf-8"), encoding="utf-8")
    return path


@pytest.mark.usefixtures("clean_env")
def test_estimate_returns_a_typed_result_without_network(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The event loop's own socket pair stays possible; reaching anything does not.
    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, no_socket)
    monkeypatch.setattr(socket, "getaddrinfo", no_socket)
    out = tmp_path / "out"
    result = estimate("qa", "How often are the filters backwashed?", doc, out_dir=out,
                      inner="lcm", cost_cap_usd=0.01)  # fmt: skip
    assert isinstance(result, RunEstimate)
    assert result.selected is not None and result.selected.mode == "lcm"
    assert result.selected.cap_stops and result.cap_warning() is not None
    assert not out.exists()
    again = asyncio.run(aestimate("task", "Summarise the shifts.", [doc], out_dir=out))
    assert again.mode == "task" and {r.role for r in again.of_mode("rlm").roles} >= {
        "doc_reader",
        "reasoner",
        "task_judge",
    }


@pytest.mark.usefixtures("clean_env")
def test_estimate_keeps_to_the_folders_it_is_given(tmp_path: Path, doc: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(InputError):
        estimate("qa", "q?", doc, out_dir=tmp_path / "out", within=[elsewhere])
