"""Settings precedence (CLI > env > .env > defaults), aliases, and one-line errors."""

from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import SettingsError, load_settings, misspelled_settings, setting_fields

SEED_ENV = [f for info in setting_fields().values() for f in [info["env"], *info["aliases"]]]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in SEED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults_follow_the_seeds() -> None:
    s = load_settings()
    assert (s.max_iters, s.worker_max_steps, s.worker_max_llm_calls) == (4, 80, 60)
    assert s.progress_heartbeat_ms == 8000
    assert s.out_dir == Path("out")


def test_precedence_cli_over_env_over_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("RALPH_MAX_ITERS=5\nRALPH_WORKER_MAX_STEPS=11\n")
    assert load_settings().max_iters == 5
    monkeypatch.setenv("RALPH_MAX_ITERS", "6")
    s = load_settings()
    assert (s.max_iters, s.worker_max_steps) == (6, 11)
    assert load_settings({"max_iters": 7}).max_iters == 7


@pytest.mark.parametrize("name", ["MAX_ITERS", "AX_MAX_ITERS", "RALPH_MAX_ITERS"])
def test_seed_aliases(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "9")
    assert load_settings().max_iters == 9


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY", "ANTHROPIC_APIKEY"])
def test_key_aliases(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "sk-test")
    key = load_settings().anthropic_api_key
    assert key is not None and key.get_secret_value() == "sk-test"


def test_bad_env_value_is_one_line_naming_setting_and_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RALPH_MAX_ITERS", "zero")
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert "\n" not in message
    assert "max_iters" in message and "RALPH_MAX_ITERS" in message and "'zero'" in message


def test_bad_cli_value_names_the_flag() -> None:
    with pytest.raises(SettingsError, match="--maxIters"):
        load_settings({"max_iters": 0})


def test_bad_dotenv_value_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("WORKER_MAX_STEPS=-3\n")
    with pytest.raises(SettingsError, match=r"worker_max_steps.*\.env"):
        load_settings()


def test_a_misspelled_setting_is_warned_about_with_the_closest_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / ".env"
    env.write_text("RALPH_MAX_ITER=9\nDATABASE_URL=postgres://x\nOPENAI_API_KEY=k\n")
    monkeypatch.setenv("RALPH_COSTCAP_USD", "1")
    monkeypatch.setenv("RALPH_NOTHING_LIKE_IT", "1")
    warnings = misspelled_settings(env)
    assert f"unknown setting RALPH_MAX_ITER in {env} is ignored: did you mean RALPH_MAX_ITERS?" in (
        warnings
    )
    assert (
        "unknown setting RALPH_COSTCAP_USD in the environment is ignored: "
        "did you mean RALPH_COST_CAP_USD?"
    ) in warnings
    assert any(w.startswith("unknown setting RALPH_NOTHING_LIKE_IT") for w in warnings)
    assert len(warnings) == 3, "another tool's variable and a known key are not warned about"
    assert load_settings(env_file=env).max_iters == 4, "the misspelled value is not used"


def test_the_run_warns_about_a_misspelled_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("RALPH_MAX_ITER=9\n")
    doc = tmp_path / "doc.md"
    doc.write_text("Filters are backwashed every 48 hours in the plant.\n")
    args = ["run", "--provider", "offline", "--mode", "qa", "--query", "How often?"]
    run_cli([*args, "--doc", str(doc), "--out", str(tmp_path / "out"), "--maxIters", "1"])
    err = capsys.readouterr().err
    assert "warning: unknown setting RALPH_MAX_ITER in .env is ignored: did you mean" in err
