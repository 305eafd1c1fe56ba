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


def test_ci_runs_the_readme_test_line() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n./dev test" in readme
    assert "\n./dev demo" in readme
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_lines[-1] == "exec ./dev test"


def test_the_test_line_runs_every_check_in_order() -> None:
    script = (ROOT / "dev").read_text(encoding="utf-8")
    checks = ['ruff" check .', 'ruff" format --check .', "mypy", "lint-imports", "pytest"]
    positions = [script.find(f'"$bin/{check}') for check in checks]
    assert all(position >= 0 for position in positions), positions
    assert positions == sorted(positions)


def test_the_test_line_then_checks_the_installed_wheel() -> None:
    script = (ROOT / "dev").read_text(encoding="utf-8")
    branch = script[script.index("\n  test)") :]
    branch = branch[: branch.index(";;")]
    assert "check_wheel() {" in script
    assert 0 <= branch.find("run_checks") < branch.find("check_wheel")
