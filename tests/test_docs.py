"""The README's settings reference and .env.example are what the settings' declarations
generate; CI runs the README's test command."""

from pathlib import Path

from ralph_tui.config.docs import env_example, with_reference

ROOT = Path(__file__).parents[1]
REGENERATE = "out of date: run `python -m ralph_tui.config.docs` and commit the result"


def test_the_readme_settings_reference_is_generated_from_the_declarations() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_reference(readme) == readme, f"README.md settings reference {REGENERATE}"


def test_env_example_is_generated_from_the_declarations() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert example == env_example().rstrip("\n") + "\n", f".env.example {REGENERATE}"


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
