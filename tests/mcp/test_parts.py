"""The MCP server's parts that need no client: progress from events, the settings a client
may give, the roots check, and the command's refusals before it serves."""

from __future__ import annotations

import itertools
import re
import socket
from pathlib import Path

import pytest

from ralph_tui.cli.app import run_cli
from ralph_tui.cli.reference import mcp_client_settings_reference
from ralph_tui.config import Settings, SettingsError, setting_specs
from ralph_tui.documents import InputError
from ralph_tui.events import IterationFinished, IterationStarted, Notice, PhaseStarted, RunFinished
from ralph_tui.mcp.client_settings import CLIENT_SETTINGS, client_settable, client_values
from ralph_tui.mcp.progress import ProgressTracker
from ralph_tui.mcp.roots import Roots


def test_progress_follows_iterations_and_phases_and_only_grows() -> None:
    tracker = ProgressTracker()
    events = [
        IterationStarted(iteration=1, max_iters=3),
        PhaseStarted(iteration=1, phase="worker"),
        Notice(message="not progress"),
        PhaseStarted(iteration=1, phase="judge"),
        IterationFinished(iteration=1, passed=False),
        IterationStarted(iteration=2, max_iters=3),
        IterationStarted(iteration=1, max_iters=2),  # a sub-task counts from 1 again
        RunFinished(status="failed", iterations=2),
    ]
    updates = [u for u in map(tracker.update, events) if u is not None]
    assert [u.message for u in updates] == [
        "iteration 1 of 3 started",
        "iteration 1 of 3: worker",
        "iteration 1 of 3: judge",
        "iteration 1 of 3 did not pass",
        "iteration 2 of 3 started",
        "iteration 1 of 2 started",
        "run finished: failed",
    ]
    values = [u.progress for u in updates]
    assert all(a < b for a, b in itertools.pairwise(values)), values
    assert 0 < values[1] < values[2] < 1 == values[3]
    assert values[-1] == 2 == updates[-1].total


def test_a_client_sets_only_the_listed_settings_within_their_bounds() -> None:
    server = Settings(max_iters=4, cost_cap_usd=2.0, provider="auto")
    given = {"max_iters": 3, "topK": 2, "provider": "offline", "cost_cap_usd": 1}
    assert client_values(given, server) == {
        "max_iters": 3, "top_k": 2, "provider": "offline", "cost_cap_usd": 1.0
    }  # fmt: skip
    settable = client_settable()
    assert {"provider", "max_iters", "top_k"} <= set(settable)
    servers = {"out_dir", "mem_file", "openai_api_key", "openai_base_url", "external_docs",
               "external_docs_file", "external_cache_dir", "crawl_concurrency",
               "external_page_max_mb", "prices", "generate_model", "variant", "role_prompts",
               "cell_timeout_s", "subcall_cache_mb", "chunk_size"}  # fmt: skip
    assert not servers & set(settable)
    path_settings = {n for n, f in Settings.model_fields.items() if "Path" in str(f.annotation)}
    assert path_settings and not path_settings & set(settable), "no setting holding a path"
    with pytest.raises(SettingsError) as raised:
        client_values(
            {"openai_base_url": "http://evil", "maxiters": 2, "crawlConcurrency": 9}, server
        )
    assert raised.value.problems == [
        "openai_base_url is the server's to set (where ralph-tui mcp starts); a client may "
        "set only the settings the MCP guide lists",
        "maxiters is not a setting; did you mean max_iters?",
        "crawlConcurrency is the server's to set (where ralph-tui mcp starts); a client may "
        "set only the settings the MCP guide lists",
    ]


@pytest.mark.parametrize(
    ("given", "refused"),
    [
        (
            {"max_iters": 5},
            "max_iters = 5 is past what a client may set: at most the server's value (4)",
        ),
        ({"cost_cap_usd": 2.5}, "at most the server's value (2.0)"),
        ({"cost_cap_usd": None}, "cost_cap_usd = None is past what a client may set"),
        ({"cost_cap_usd": "none"}, "cost_cap_usd = None is past what a client may set"),
        ({"provider": "auto"}, "provider = 'auto' is past what a client may set: `offline`"),
        ({"subcall_cache": "shared"}, "subcall_cache = 'shared'"),
        ({"top_k": 101, "top_n": 101}, "top_n = 101 is past what a client may set: from 1 to 100"),
        ({"temperature": 9}, "temperature = 9.0 is past what a client may set: from 0 to 2"),
        ({"max_iters": "many"}, "max_iters"),
    ],
)
def test_a_client_may_lower_a_budget_but_not_raise_it(
    given: dict[str, object], refused: str
) -> None:
    server = Settings(max_iters=4, cost_cap_usd=2.0, provider="offline", subcall_cache="session")
    with pytest.raises(SettingsError, match=re.escape(refused)):
        client_values(given, server)
    unbounded = Settings(cost_cap_usd="none")
    assert client_values({"cost_cap_usd": 500, "run_timeout_s": 9e9}, unbounded)


def test_a_client_meets_the_default_cost_cap_and_may_not_raise_or_remove_it() -> None:
    server = Settings(_env_file=None)
    assert client_values({"cost_cap_usd": 1.5}, server) == {"cost_cap_usd": 1.5}
    for past in (5.01, None, "none"):
        with pytest.raises(SettingsError, match=re.escape("at most the server's value (5.0)")):
            client_values({"cost_cap_usd": past}, server)


def test_every_listed_setting_is_declared_and_the_mcp_guide_lists_them() -> None:
    assert set(CLIENT_SETTINGS) <= set(setting_specs())
    guide = (Path(__file__).parents[2] / "docs" / "guide" / "mcp.md").read_text(encoding="utf-8")
    assert "<!-- generated: mcp_client_settings -->" in guide
    table = mcp_client_settings_reference()
    assert [line.split("`")[1] for line in table.splitlines()[2:]] == list(CLIENT_SETTINGS)


def test_roots_take_relative_paths_from_the_first_and_refuse_what_lies_outside(
    tmp_path: Path,
) -> None:
    inside = tmp_path / "docs"
    (inside / "sub").mkdir(parents=True)
    (tmp_path / "escape").symlink_to(tmp_path.parent)
    roots = Roots.of([inside, tmp_path / "docs" / "sub"])
    assert roots.check("a.md") == inside / "a.md"
    assert roots.check(str(inside / "sub" / "*.pdf")) == inside / "sub" / "*.pdf"
    for outside in ("../a.md", "/etc/passwd", str(tmp_path / "escape" / "x.md"), "sub/../../b"):
        with pytest.raises(InputError, match="outside the folders"):
            roots.check(outside)
    with pytest.raises(InputError, match="no paths"):
        roots.check_all([])
    with pytest.raises(InputError, match="not a folder"):
        Roots.of([tmp_path / "missing"])


def test_the_command_refuses_a_bad_root_or_address_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["mcp", "--root", str(tmp_path / "missing")]) == 2
    assert run_cli(["mcp", "--root", str(tmp_path), "--http", "localhost"]) == 2
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert run_cli(["mcp", "--root", str(tmp_path), "--http", f"127.0.0.1:{port}"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3 and "not a folder" in errors[0] and "HOST:PORT" in errors[1]
    assert "cannot listen there" in errors[2]
