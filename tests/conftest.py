"""Suite-wide test settings."""

from pathlib import Path

import pytest
from hypothesis import settings

from ralph_tui.config import setting_specs

# Property tests judge correctness, not speed: a loaded 2-core CI machine must not fail them
# on hypothesis's per-example deadline.
settings.register_profile("project", deadline=None)
settings.load_profile("project")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No setting or key from the machine's environment or a stray ``.env`` leaks in: every
    name a setting is read from is unset, and the work dir is a fresh one."""
    for spec in setting_specs().values():
        for name in spec.env_names:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
