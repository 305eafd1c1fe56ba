"""A password inside a URL (an endpoint's user info, a ``?api_key=`` parameter) is never
shown or recorded: ``config``, ``config --json``, ``doctor --json``, a recorded session,
its events, and error lines show ``***`` in its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.errors import UsageError
from ralph_tui.redact import redact_url, redact_urls

pytestmark = pytest.mark.usefixtures("clean_env")

SAMPLE = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
ENDPOINT = "http://alice:Pa55-w0rd@llm.internal:8080/v1?api_key=QUERYSECRET&model=x"
SHOWN = "http://alice:***@llm.internal:8080/v1?api_key=***&model=x"
SECRETS = ("Pa55-w0rd", "QUERYSECRET")


def assert_hidden(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (ENDPOINT, SHOWN),
        ("https://TOKEN123@git.example/repo", "https://***@git.example/repo"),
        ("https://h.example/x?X-Amz-Signature=abc&part=1", "https://h.example/x?X-Amz-Signature=***&part=1"),
        ("https://h.example/x?access_token=abc", "https://h.example/x?access_token=***"),
        ("https://docs.example/guide/?page=2", "https://docs.example/guide/?page=2"),
        ("not a url", "not a url"),
    ],
)  # fmt: skip
def test_a_url_keeps_everything_but_its_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_urls_inside_text_and_lists_are_redacted() -> None:
    text = f"cannot reach {ENDPOINT}: refused; also https://a.example,https://u:p1@b.example/x"
    assert redact_urls(text) == (
        f"cannot reach {SHOWN}: refused; also https://a.example,https://u:***@b.example/x"
    )


def test_config_shows_an_endpoints_password_as_stars(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", ENDPOINT)
    assert run_cli(["config"]) == 0
    printed = capsys.readouterr().out
    assert_hidden(printed)
    assert SHOWN in printed

    assert run_cli(["config", "--json", "--externalDocs", "https://bob:S3CRET@docs.example/"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert rows["openai_base_url"]["value"] == SHOWN
    assert rows["external_docs"]["value"] == "https://bob:***@docs.example/"


def test_doctor_json_shows_the_endpoint_without_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", ENDPOINT)
    run_cli(["doctor", "--json", "--generate-model", "openai:m", "--validate-model", "openai:m"])
    printed = capsys.readouterr().out
    assert_hidden(printed)
    checks = {check["name"]: check for check in json.loads(printed)}
    assert checks["openai key"]["detail"] == f"no key, endpoint {SHOWN}"


def test_a_recorded_session_keeps_no_password_of_its_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    # The cache is empty and never refreshed, so nothing is fetched: the run is let through
    # with no external page (as the recorded-settings tests do).
    monkeypatch.setattr("ralph_tui.loops.runner.check_external", lambda _settings: None)
    docs = "https://bob:Pa55-w0rd@docs.example/guide/?token=QUERYSECRET"
    code = run_cli([
        "run", "--json", "--mode", "qa", "--query", "How often are the filters backwashed?",
        "--doc", str(SAMPLE), "--out", str(out), "--provider", "offline", "--maxIters", "1",
        "--externalDocs", docs, "--externalRefresh", "never",
    ])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert_hidden(captured.out + captured.err)
    session_id = json.loads(captured.out)["sessionId"]
    folder = out / "sessions" / session_id
    record = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    assert record["settings"]["externalDocs"] == "https://bob:***@docs.example/guide/?token=***"
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".md"):
            assert_hidden(path.read_text(encoding="utf-8", errors="replace"))


def test_an_error_line_hides_a_password_it_quotes(capsys: pytest.CaptureFixture[str]) -> None:
    error = UsageError(f"cannot reach {ENDPOINT}", hint=f"check {ENDPOINT}")
    assert_hidden(error.one_line() + json.dumps(error.to_json()))
    assert SHOWN in error.message


def test_a_bad_setting_that_quotes_a_url_hides_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RALPH_TOP_K", ENDPOINT)
    assert run_cli(["config", "--json"]) == 2
    captured = capsys.readouterr()
    assert_hidden(captured.out + captured.err)
    assert "RALPH_TOP_K" in captured.out + captured.err
