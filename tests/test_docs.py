""".env.example is what the settings' declarations generate (the settings page of the site is
generated at every build: tests/test_docs_site.py); the README stays short; CI runs its test
command."""

import re
from pathlib import Path

from ralph_tui.config.docs import env_example

ROOT = Path(__file__).parents[1]
README_MAX_LINES = 200
"""The README is what a newcomer reads first; the documentation site holds the rest."""


def test_env_example_is_generated_from_the_declarations() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    regenerate = "run `python -m ralph_tui.config.docs` and commit the result"
    assert example == env_example().rstrip("\n") + "\n", f".env.example out of date: {regenerate}"


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


def test_the_readme_is_short_and_what_it_links_to_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    targets = re.findall(r"\]\(([^)#\s]+)[^)]*\)", readme)
    local = [target for target in targets if "://" not in target]
    assert any(target.endswith(".svg") for target in local), "the README shows the app"
    for target in local:
        assert (ROOT / target).exists(), target
