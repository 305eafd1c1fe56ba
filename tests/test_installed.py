"""A hint to install or reinstall something names the command that works for how ralph-tui
was installed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ralph_tui import doctor, installed

Prefix = Callable[..., None]


@pytest.fixture
def prefix(monkeypatch: pytest.MonkeyPatch) -> Iterator[Prefix]:
    """Set where this ralph-tui's virtualenv lives, and forget the cached answer."""

    def use(path: str, *, editable: bool = False) -> None:
        monkeypatch.setattr(sys, "prefix", path)
        monkeypatch.setattr(installed, "_editable", lambda: editable)
        installed.how_installed.cache_clear()

    yield use
    installed.how_installed.cache_clear()


@pytest.mark.parametrize(
    ("path", "editable", "installer", "command"),
    [
        ("/home/a/.local/share/pipx/venvs/ralph-tui", False, "pipx", "pipx install --force"),
        ("/home/a/.local/share/uv/tools/ralph-tui", False, "uv", "uv tool install --force"),
        ("/home/a/src/ralph-tui/.venv", True, "clone", "pip install -e '.[ray]'"),
        ("/home/a/venv", False, "pip", f"{sys.executable} -m pip install 'ralph-tui[ray]'"),
    ],
)
def test_the_ray_hint_fits_the_installation(
    prefix: Prefix, path: str, editable: bool, installer: str, command: str
) -> None:
    prefix(path, editable=editable)
    assert installed.how_installed() == installer
    assert command in installed.add_extra_command("ray")
    if installer != "clone":
        assert "ralph-tui[ray]" in installed.add_extra_command("ray")


def test_doctor_tells_a_pipx_user_the_pipx_command(
    prefix: Prefix, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix("/home/a/.local/pipx/venvs/ralph-tui")
    monkeypatch.setattr(doctor.importlib.util, "find_spec", lambda name: None)
    check = doctor.ray_check()
    assert "pipx install --force 'ralph-tui[ray]'" in check.detail
    assert "pip install 'ralph-tui" not in check.detail.replace("pipx install", "")


def test_a_uv_user_reinstalls_through_uv(prefix: Prefix) -> None:
    prefix(str(Path("/home/a/.local/share/uv/tools/ralph-tui")))
    assert installed.reinstall_command("pypdfium2") == "uv tool install --reinstall ralph-tui"


def test_this_checkout_is_a_clone() -> None:
    installed.how_installed.cache_clear()
    assert installed.how_installed() == "clone"
