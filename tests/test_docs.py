"""README and .env.example document every setting; CI runs the README's test command."""

from pathlib import Path

import pytest

from ralph_tui.config import setting_fields

ROOT = Path(__file__).parents[1]
SETTINGS = setting_fields()


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_every_setting_is_documented(name: str) -> None:
    info = SETTINGS[name]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    row = next((line for line in readme.splitlines() if line.startswith(f"| {name} |")), "")
    assert f"`{info['env']}`" in row
    assert all(f"`{alias}`" in row for alias in info["aliases"])
    if info["flag"]:
        assert f"`{info['flag']}`" in row
    assert f"# {info['env']}=" in example


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "ruff check . && ruff format --check . && mypy && lint-imports && pytest"
    assert command in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    venv_command = " && ".join(f".venv/bin/{part.strip()}" for part in command.split("&&"))
    assert venv_command in ci
