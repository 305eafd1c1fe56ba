"""How this copy of ralph-tui was installed, so that a hint to install or reinstall
something says the command that works for it: ``pip install 'ralph-tui[ray]'`` means
nothing to someone who installed with pipx or ``uv tool``, whose ralph-tui lives in a
virtualenv of its own."""

from __future__ import annotations

import itertools
import sys
from functools import cache
from pathlib import PurePath
from typing import Literal

Installer = Literal["pipx", "uv", "clone", "pip"]

DISTRIBUTION = "ralph-tui"


@cache
def how_installed() -> Installer:
    """``pipx`` or ``uv`` (a tool's own virtualenv), ``clone`` (an editable install of a
    checkout), else ``pip``."""
    pairs = set(itertools.pairwise(PurePath(sys.prefix).parts))
    if ("pipx", "venvs") in pairs:
        return "pipx"
    if ("uv", "tools") in pairs:
        return "uv"
    return "clone" if _editable() else "pip"


def _editable() -> bool:
    """Whether this code runs from a checkout (an editable install, or no install) rather
    than from a copy inside a virtualenv's packages."""
    parts = PurePath(__file__).parts
    return "site-packages" not in parts and "dist-packages" not in parts


def add_extra_command(extra: str) -> str:
    """The command that adds ralph-tui's optional ``extra`` to this installation."""
    spec = f"'{DISTRIBUTION}[{extra}]'"
    return {
        "pipx": f"pipx install --force {spec}",
        "uv": f"uv tool install --force {spec}",
        "clone": f"pip install -e '.[{extra}]' in the clone",
        "pip": f"{_pip()} install {spec}",
    }[how_installed()]


def reinstall_command(package: str = DISTRIBUTION) -> str:
    """The command that reinstalls ``package`` (ralph-tui or one of its dependencies)."""
    return {
        "pipx": f"pipx runpip {DISTRIBUTION} install --force-reinstall {package}",
        "uv": f"uv tool install --reinstall {DISTRIBUTION}",
        "clone": f"pip install --force-reinstall {package} (in the clone's virtualenv)"
        if package != DISTRIBUTION
        else "pip install -e . in the clone",
        "pip": f"{_pip()} install --force-reinstall {package}",
    }[how_installed()]


def _pip() -> str:
    """``pip`` of the interpreter ralph-tui runs on (a bare ``pip`` may be another's)."""
    return f"{sys.executable} -m pip"
