"""Every non-secret setting that shaped a run is recorded in session.json and restored by
resume and re-run (CLI and app alike), validated like any other value; keys and endpoints
never are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import SecretStr, TypeAdapter, ValidationError

from ralph_tui.cli import run_cli
from ralph_tui.config import (
    Settings,
    SettingsError,
    SettingSpec,
    load_settings,
    recorded_settings,
    restored_settings,
    setting_specs,
    with_values,
)
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.requests import rerun_request

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
SPECIAL = {"prices": "local=1/2", "external_docs": "https://docs.example/a,https://docs.example/b"}


pytestmark = pytest.mark.usefixtures("clean_env")


def other_value(spec: SettingSpec, tmp_path: Path) -> Any:
    """A valid value of ``spec`` that is not its default."""
    if spec.name in SPECIAL:
        return SPECIAL[spec.name]
    if spec.choices:
        return next(choice for choice in spec.choices if choice != spec.default)
    default = spec.default
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    if isinstance(default, float):
        return default + 1.5
    if isinstance(default, dict):
        return {"worker": "Explore the document."}
    if spec.path:
        return tmp_path / "out" / spec.name  # inside the out dir, where a restore follows it
    if isinstance(default, str):
        return f"{spec.name}-value"
    # An unset setting: a number where it takes one, else a word.
    field = Settings.model_fields[spec.name]
    kind = Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
    adapter: TypeAdapter[Any] = TypeAdapter(kind)
    for candidate in (7, f"{spec.name}-value"):
        try:
            return adapter.validate_python(candidate)
        except ValidationError:
            continue
    raise AssertionError(f"no value found for {spec.name}")


def test_every_recorded_setting_survives_a_record_and_restore(tmp_path: Path) -> None:
    given = {s.name: other_value(s, tmp_path) for s in setting_specs().values() if s.recorded}
    settings = load_settings(given, env_file=tmp_path / "none.env")
    stored = json.loads(json.dumps(recorded_settings(settings)))  # through session.json
    again = load_settings(recorded=restored_settings(stored), env_file=tmp_path / "none.env")
    for name in given:
        assert getattr(again, name) == getattr(settings, name), name
        assert getattr(again, name) != setting_specs()[name].default, name


def test_keys_and_endpoints_are_never_recorded(tmp_path: Path) -> None:
    settings = load_settings(
        {"anthropic_api_key": SecretStr("sk-secret"), "openai_base_url": "https://local.test"},
        env_file=tmp_path / "none.env",
    )
    text = json.dumps(recorded_settings(settings))
    assert "sk-secret" not in text and "local.test" not in text
    assert not any(
        spec.recorded for spec in setting_specs().values() if spec.group == "keys and endpoints"
    )


def test_a_bad_recorded_value_is_refused_naming_the_session(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="recorded with session s1"):
        load_settings(recorded={"max_iters": 0}, recorded_from="session s1")
    settings = load_settings()
    with pytest.raises(SettingsError, match=r"top_k .*\(from session s2\)"):
        with_values(settings, {"top_k": -1}, "session s2")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = run_cli(["run", "--json", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)


FLAGS = [
    "--topK", "3", "--topN", "9", "--chunkSize", "300", "--chunkOverlap", "20",
    "--timeout", "120", "--context-window", "8192", "--embedder", "offline",
    "--externalDocs", "https://docs.example/guide/", "--externalProvider", "pageindex",
    "--crawlDepth", "0", "--externalTtlMin", "30", "--externalRefresh", "never",
]  # fmt: skip


def test_run_rerun_repeats_the_parents_settings_and_links_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    base = ["--out", str(out), "--provider", "offline", "--maxIters", "1"]
    # External docs from a cache that is empty: with --externalRefresh never, the run
    # is refused before it starts; so the parent is recorded by hand from its request.
    monkeypatch.setattr(
        "ralph_tui.loops.runner.check_external", lambda _settings: None, raising=True
    )
    code, parent = run_json(
        capsys, "--mode", "qa", "--query", "How often are the filters backwashed?",
        "--doc", str(SAMPLE), *base, *FLAGS, "--constraint", "Quote the schedule",
    )  # fmt: skip
    assert code in (0, 1)
    store = TraceStore(out)
    recorded = store.load_session(parent["sessionId"]).settings
    assert recorded["externalDocs"] == "https://docs.example/guide/"
    assert (recorded["topK"], recorded["chunkSize"], recorded["runTimeoutS"]) == (3, 300, 120)
    assert recorded["contextWindow"] == 8192 and recorded["externalProvider"] == "pageindex"

    code, child = run_json(capsys, "--rerun", parent["sessionId"], "--out", str(out), "--topK", "2")
    assert code in (0, 1)
    record = store.load_session(child["sessionId"])
    assert record.parent_session_id == parent["sessionId"]
    assert record.query == "How often are the filters backwashed?" and record.mode == "qa"
    again = record.settings
    assert again["topK"] == 2, "a flag given with --rerun overrides the recorded value"
    assert {k: v for k, v in again.items() if k != "topK"} == {
        k: v for k, v in recorded.items() if k != "topK"
    }, "everything else, constraints included, is the parent's"


def test_rerun_with_constraints_replaces_the_parents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    base = ["--out", str(out), "--provider", "offline", "--maxIters", "1"]
    _, parent = run_json(
        capsys, "--mode", "qa", "--query", "How often are the filters backwashed?",
        "--doc", str(SAMPLE), *base, "--constraint", "old",
    )  # fmt: skip
    _, child = run_json(capsys, "--rerun", parent["sessionId"], "--out", str(out),
                        "--constraint", "new")  # fmt: skip
    assert TraceStore(out).load_session(child["sessionId"]).settings["constraints"] == ["new"]


def test_rerun_refuses_what_it_would_ignore_and_unknown_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["run", "--rerun", "2026-01-01/qa-deadbeef", "--out", str(out)])
    assert code == 2 and "no session '2026-01-01/qa-deadbeef'" in capsys.readouterr().err
    code = run_cli(["run", "--rerun", "x", "--query", "q", "--out", str(out)])
    assert code == 2 and "--query cannot be combined" in capsys.readouterr().err


def test_the_apps_rerun_restores_the_recorded_settings_validated(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli([
        "run", "--mode", "qa", "--query", "How often?", "--doc", str(SAMPLE), "--out", str(out),
        "--provider", "offline", "--maxIters", "1", "--topK", "2", "--timeout", "99",
    ]) in (0, 1)  # fmt: skip
    store = TraceStore(out)
    [row] = store.index.list_sessions()
    record = store.load_session(row.session_id)
    request = rerun_request(record, ["edited"], load_settings({"out_dir": out}))
    assert (request.settings.top_k, request.settings.run_timeout_s) == (2, 99)
    assert request.parent_session_id == record.session_id and request.constraints == ["edited"]
    broken = record.model_copy(update={"settings": {**record.settings, "topK": "many"}})
    with pytest.raises(SettingsError, match=f"session {record.session_id}"):
        rerun_request(broken, [], load_settings({"out_dir": out}))
