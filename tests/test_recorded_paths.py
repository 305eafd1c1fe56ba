"""A session folder may come from someone else: the paths its settings recorded are not
followed outside the out dir by ``run --rerun``, ``run --resume`` or the app's re-run (one
line, exit 2, nothing written), unless the command line gives them again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import RecordedPathOutside, SettingSpec, load_settings, setting_specs
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.requests import rerun_request

pytestmark = pytest.mark.usefixtures("clean_env")

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
TASK = "List the maintenance intervals of the filters."

RECORDED_PATHS = [spec for spec in setting_specs().values() if spec.path and spec.recorded]
"""Every recorded setting whose value is a place on disk, from the declarations."""


def test_the_recorded_paths_are_found_from_the_declarations() -> None:
    assert {spec.name for spec in RECORDED_PATHS} >= {"mem_file", "external_cache_dir"}


def recorded_session(out: Path) -> str:
    """A finished offline task session under ``out``; its id."""
    code = run_cli([
        "run", "--json", "--mode", "task", "--query", TASK, "--doc", str(SAMPLE),
        "--out", str(out), "--provider", "offline", "--maxIters", "1",
    ])  # fmt: skip
    assert code in (0, 1)
    return str(TraceStore(out).index.list_sessions()[0].session_id)


def tamper(out: Path, session_id: str, **settings: Any) -> None:
    """Rewrite the session's recorded settings, as someone who sent the folder could."""
    path = out / "sessions" / session_id / "session.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["settings"].update(settings)
    record["status"] = "failed"
    path.write_text(json.dumps(record), encoding="utf-8")


def folder_state(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def outside_value(spec: SettingSpec, victim: Path) -> str:
    return str(victim / ("notes.md" if spec.name.endswith("_file") else "cache"))


@pytest.mark.parametrize("again", ["--rerun", "--resume"])
@pytest.mark.parametrize("spec", RECORDED_PATHS, ids=lambda spec: spec.name)
def test_a_recorded_path_outside_the_out_dir_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: SettingSpec, again: str
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.md").write_text("precious\n", encoding="utf-8")
    tamper(out, session_id, **{spec.record_key: outside_value(spec, victim)})
    before_victim, before_out = folder_state(victim), folder_state(out / "sessions")
    capsys.readouterr()

    code = run_cli(["run", again, session_id, "--out", str(out)])

    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    named = f"{spec.flags[0]} {outside_value(spec, victim)}"
    assert f"{named} (recorded with session {session_id})" in err
    assert "outside the out dir" in err and f"give {spec.flags[0]} on the command line" in err
    assert folder_state(victim) == before_victim, "nothing written beside the recorded path"
    assert folder_state(out / "sessions") == before_out, "no session started"


def test_a_link_inside_the_out_dir_that_leads_out_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    victim = tmp_path / "victim"
    victim.mkdir()
    (out / "looks-inside").symlink_to(victim)
    tamper(out, session_id, memFile=str(out / "looks-inside" / "notes.md"))
    assert run_cli(["run", "--rerun", session_id, "--out", str(out)]) == 2
    assert "outside the out dir" in capsys.readouterr().err
    assert list(victim.iterdir()) == []


def test_a_path_given_again_on_the_command_line_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    mine = tmp_path / "mine" / "context.md"
    mine.parent.mkdir()
    tamper(out, session_id, memFile=str(tmp_path / "victim" / "notes.md"))
    code = run_cli(["run", "--rerun", session_id, "--out", str(out), "--memFile", str(mine)])
    assert code in (0, 1), capsys.readouterr().err
    assert "## Iter 1" in mine.read_text(encoding="utf-8")
    assert not (tmp_path / "victim").exists()


def test_a_recorded_path_inside_the_out_dir_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    inside = out / "memory" / "context.md"
    tamper(out, session_id, memFile=str(inside))
    code = run_cli(["run", "--rerun", session_id, "--out", str(out)])
    assert code in (0, 1), capsys.readouterr().err
    assert "## Iter 1" in inside.read_text(encoding="utf-8")


def test_the_apps_rerun_refuses_a_recorded_path_outside_the_out_dir(tmp_path: Path) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    tamper(out, session_id, memFile=str(tmp_path / "victim" / "notes.md"))
    record = TraceStore(out).load_session(session_id)
    with pytest.raises(RecordedPathOutside, match="--memFile"):
        rerun_request(record, [], load_settings({"out_dir": out}))


@pytest.mark.parametrize(
    ("choices", "named"),
    [({"constraints": 7}, "constraints"), ({"docs": {"a": 1}}, "docs"),
     ({"constraints": [{"x": 1}]}, "constraints.0")],
)  # fmt: skip
def test_a_malformed_recorded_choice_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], choices: dict[str, Any], named: str
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    tamper(out, session_id, **choices)
    capsys.readouterr()
    assert run_cli(["run", "--rerun", session_id, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"session {session_id} recorded an invalid {named}:" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("linked", ["context.md", "episodes.jsonl", "events.jsonl"])
def test_resume_refuses_a_session_folder_whose_files_lead_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    tamper(out, session_id)  # failed, so it may be resumed
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    target = out / "sessions" / session_id / linked
    target.unlink(missing_ok=True)
    target.symlink_to(victim)
    capsys.readouterr()
    assert run_cli(["run", "--resume", session_id, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "leads outside the out dir" in err and len(err.strip().splitlines()) == 1
    assert victim.read_text(encoding="utf-8") == "precious\n"


def test_a_recorded_variant_that_is_a_path_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    session_id = recorded_session(out)
    tamper(out, session_id, variant="../../../elsewhere/v1")
    capsys.readouterr()
    assert run_cli(["run", "--rerun", session_id, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not a path" in err and f"recorded with session {session_id}" in err
