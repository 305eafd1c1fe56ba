"""Settings precedence (CLI > env > .env > defaults), aliases, and one-line errors."""

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import (
    Settings,
    SettingsError,
    load_settings,
    misspelled_settings,
    setting_specs,
)

pytestmark = pytest.mark.usefixtures("clean_env")


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


def test_every_bad_value_is_reported_at_once_with_its_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("# models\nRALPH_TOP_N=lots\n")
    monkeypatch.setenv("MAX_ITERS", "zero")
    with pytest.raises(SettingsError) as info:
        load_settings({"chunk_size": -1})
    problems = info.value.problems
    assert len(problems) == 3 and str(info.value).startswith("3 invalid settings: ")
    assert any("chunk_size" in p and "flag --chunkSize" in p for p in problems)
    assert any("max_iters" in p and "environment variable MAX_ITERS" in p for p in problems)
    assert any("top_n" in p and ".env line 2 (RALPH_TOP_N)" in p for p in problems)


def test_an_unknown_flag_gets_the_closest_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["run", "--maxIterz", "2"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --maxIterz" in err and "did you mean --maxIters?" in err


def test_config_shows_each_setting_with_its_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".env").write_text("RALPH_TOP_K=4\nOPENAI_API_KEY=sk-hidden\n")
    monkeypatch.setenv("RALPH_INNER", "lcm")
    assert run_cli(["config", "--json", "--maxIters", "3"]) == 0
    out = capsys.readouterr().out
    rows = {row["name"]: row for row in json.loads(out)["settings"]}
    assert set(rows) == set(setting_specs())
    assert (rows["max_iters"]["value"], rows["max_iters"]["source"]) == (3, "flag --maxIters")
    assert rows["inner"]["source"] == "environment variable RALPH_INNER"
    assert rows["top_k"]["source"] == ".env line 1 (RALPH_TOP_K)"
    assert rows["worker_max_steps"] == {
        "name": "worker_max_steps", "group": "budgets", "value": 80,
        "env": "RALPH_WORKER_MAX_STEPS", "flag": "--worker-max-steps", "source": "default",
    }  # fmt: skip
    assert rows["openai_api_key"]["value"] == "set" and "sk-hidden" not in out
    assert rows["anthropic_api_key"]["value"] == "unset"
    assert run_cli(["config"]) == 0
    text = capsys.readouterr().out
    assert "budgets:" in text and "flag" not in text.split("budgets:")[0].split("\n")[0]


def test_config_names_the_line_or_variable_whose_value_the_setting_took(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the first of a setting's names that is set gives its value, its field name last
    (tmp_path / ".env").write_text("RALPH_MAX_ITERS=3\nMAX_ITERS=5\ntop_k=4\n")
    monkeypatch.setenv("chunk_size", "800")
    monkeypatch.setenv("RALPH_CHUNK_SIZE", "700")
    assert run_cli(["config", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert (rows["max_iters"]["value"], rows["max_iters"]["source"]) == (
        3,
        ".env line 1 (RALPH_MAX_ITERS)",
    )
    assert (rows["top_k"]["value"], rows["top_k"]["source"]) == (4, ".env line 3 (top_k)")
    assert (rows["chunk_size"]["value"], rows["chunk_size"]["source"]) == (
        700,
        "environment variable RALPH_CHUNK_SIZE",
    )


def test_a_mapping_that_is_not_json_is_a_one_line_settings_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RALPH_ROLE_PROMPTS", "worker: be brief")
    assert run_cli(["config"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "setting role_prompts (from environment variable RALPH_ROLE_PROMPTS)" in line
    assert "written as JSON" in line and "a bug" not in line


def test_config_names_the_active_variant_as_the_source_of_its_knobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ralph_tui.variants.store import Variant, VariantStore, variant_id

    store = VariantStore(tmp_path / "out")
    knobs = {"worker_max_steps": 12}
    variant = Variant(id=variant_id(knobs, {}), knobs=knobs)
    store.save(variant)
    store.activate(variant.id)
    assert run_cli(["config", "--json", "--out", str(tmp_path / "out")]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert rows["worker_max_steps"] == {
        **rows["worker_max_steps"], "value": 12, "source": f"variant {variant.id}"
    }  # fmt: skip


def test_the_cost_cap_has_a_default_and_none_removes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(_env_file=None).cost_cap_usd == 5.0
    for word in ("none", "None", "off"):
        monkeypatch.setenv("RALPH_COST_CAP_USD", word)
        assert Settings(_env_file=None).cost_cap_usd is None
    monkeypatch.setenv("RALPH_COST_CAP_USD", "12.5")
    assert Settings(_env_file=None).cost_cap_usd == 12.5
    with pytest.raises(SettingsError, match="give a number of US dollars, or none for no cap"):
        load_settings({"cost_cap_usd": "lots"})
