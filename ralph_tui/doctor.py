"""What works here and what does not: the checks ``ralph-tui doctor`` prints, each ok, warn or
fail with what to do. The checks are real (the sandbox is started, documents converted, the
out dir written to); none prints a key.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import version
from typing import Literal

from ralph_tui.config import Settings
from ralph_tui.config.paths import folder_problem
from ralph_tui.counts import counted
from ralph_tui.documents.detect import Format
from ralph_tui.installed import add_extra_command, reinstall_command
from ralph_tui.redact import redact_urls

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One check's result: ``detail`` says what was found, ``fix`` what to do about it."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    def __post_init__(self) -> None:
        # A detail may name an endpoint, and an endpoint may carry a password.
        object.__setattr__(self, "detail", redact_urls(self.detail))
        object.__setattr__(self, "fix", redact_urls(self.fix))

    def to_json(self) -> dict[str, str]:
        return asdict(self)


MARKS: dict[Status, str] = {"ok": "ok", "warn": "warn", "fail": "FAIL"}


def report_lines(checks: list[Check]) -> list[str]:
    """The checks as ``ralph-tui doctor`` and the app show them: a line each, and under a
    check that is not ok, what to do."""
    width = max(len(check.name) for check in checks)
    lines = []
    for check in checks:
        lines.append(f"{MARKS[check.status]:<4}  {check.name:<{width}}  {check.detail}".rstrip())
        if check.fix and check.status != "ok":
            lines.append(f"{'':<4}  {'':<{width}}  -> {check.fix}")
    return lines


async def run_checks(settings: Settings, *, online: bool = False) -> list[Check]:
    """Every check, in the order they are shown; ``online`` adds a one-token call to each
    role's model."""
    checks = [python_check(), await sandbox_check(), *key_checks(settings)]
    checks += model_checks(settings)
    if online:
        checks += await online_checks(settings)
    checks += [*converter_checks(), out_dir_check(settings), ray_check()]
    return checks


def python_check() -> Check:
    """The interpreter (ralph-tui installs only on 3.11 or newer, so this one is fine)."""
    return Check("python", "ok", f"Python {'.'.join(map(str, sys.version_info[:3]))}")


async def sandbox_check() -> Check:
    from ralph_tui.sandbox import Sandbox

    try:
        async with await Sandbox.start() as sandbox:
            result = await sandbox.execute("print(6 * 7)")
            isolation = sandbox.isolation
    except Exception as exc:
        fix = "check that this Python can start subprocesses; --inner lcm needs no sandbox"
        return Check("sandbox", "fail", f"cannot start: {exc}", fix)
    if result.output.strip() != "42":
        return Check("sandbox", "fail", f"a cell gave {result.output!r}", "report this")
    if isolation == "bwrap":
        return Check("sandbox", "ok", "isolated with bubblewrap (namespaces, no network)")
    fix = "install bubblewrap (apt-get install bubblewrap) for full isolation"
    return Check("sandbox", "warn", f"isolation is only {isolation}", fix)


def key_checks(settings: Settings) -> list[Check]:
    """Whether each provider the roles use has a key or an endpoint (never the key)."""
    from ralph_tui.llm.keys import can_reach, missing_key_hint
    from ralph_tui.llm.roles import role_specs

    providers = sorted({provider for provider, _ in role_specs(settings).values()})
    checks = []
    for provider in providers:
        if provider == "offline":
            checks.append(Check("keys", "ok", "offline provider: no key needed"))
            continue
        endpoint = getattr(settings, f"{provider}_base_url")
        if not can_reach(settings, provider):
            fix = missing_key_hint(provider, None)
            checks.append(Check(f"{provider} key", "fail", "no key and no endpoint", fix))
        elif getattr(settings, f"{provider}_api_key"):
            checks.append(Check(f"{provider} key", "ok", "key set"))
        else:
            checks.append(Check(f"{provider} key", "ok", f"no key, endpoint {endpoint}"))
    return checks


def model_checks(settings: Settings) -> list[Check]:
    """Each role's model: known to the installed SDK, and its context window."""
    from ralph_tui.llm.models import check_model, context_window_tokens
    from ralph_tui.llm.roles import role_specs

    checks = []
    for role, (provider, model) in role_specs(settings).items():
        if provider == "offline":
            continue
        window = settings.context_window or context_window_tokens(provider, model)
        warnings = check_model(provider, model)
        detail = f"{provider}:{model}, context window {window:,} tokens"
        status: Status = "warn" if warnings else "ok"
        checks.append(Check(f"{role} model", status, detail, "; ".join(warnings)))
    return checks


async def online_checks(settings: Settings) -> list[Check]:
    """A one-token call to each role's model, through the same clients a run uses."""
    from ralph_tui.llm.factory import build_clients
    from ralph_tui.llm.types import ChatMessage

    try:
        clients = build_clients(settings)
    except Exception as exc:
        return [Check("online", "fail", str(exc), "fix the key or endpoint the message names")]
    checks = []
    try:
        for role in ("generate", "validate", "sub"):
            client = getattr(clients, role)
            where = f"{client.provider}:{client.model}"
            try:
                await client.chat([ChatMessage(role="user", content="Say OK.")], max_tokens=1)
            except Exception as exc:
                fix = "check the model name, the key and the endpoint"
                checks.append(Check(f"{role} call", "fail", f"{where}: {exc}", fix))
            else:
                checks.append(Check(f"{role} call", "ok", f"{where} answered"))
    finally:
        await clients.aclose()
    return checks


def converter_checks() -> list[Check]:
    """Each document format converted for real, from a small sample made here."""
    from ralph_tui.documents.convert import extract

    samples: dict[Format, Callable[[], bytes]] = {"html": _html_sample, "docx": _docx_sample}
    checks = []
    for fmt, make in samples.items():
        try:
            text = extract(make(), fmt).text
        except Exception as exc:
            fix = f"reinstall ralph-tui ({reinstall_command()})"
            checks.append(Check(f"{fmt} converter", "fail", f"{type(exc).__name__}: {exc}", fix))
            continue
        status: Status = "ok" if "doctor sample" in text else "fail"
        checks.append(Check(f"{fmt} converter", status, f"read {len(text)} characters"))
    try:
        import pypdfium2

        from ralph_tui.documents.pdf import PDFIUM_LOCK

        with PDFIUM_LOCK:
            pypdfium2.PdfDocument.new().new_page(200, 200)
    except Exception as exc:
        fix = f"reinstall pypdfium2 ({reinstall_command('pypdfium2')})"
        checks.append(Check("pdf converter", "fail", f"{type(exc).__name__}: {exc}", fix))
    else:
        checks.append(Check("pdf converter", "ok", f"pypdfium2 {version('pypdfium2')}"))
    return checks


def _html_sample() -> bytes:
    paragraph = "<p>This is the doctor sample, a page with enough words to be an article.</p>"
    body = f"<body><article>{paragraph * 3}</article></body>"
    return f"<html><head><title>t</title></head>{body}</html>".encode()


def _docx_sample() -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph("This is the doctor sample.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def out_dir_check(settings: Settings) -> Check:
    """The out dir can be written to, and its session index read."""
    out = settings.out_dir
    problem = folder_problem(out)
    if problem:
        return Check("out dir", "fail", problem, "pass --out DIR with a folder you can write to")
    index = out / "index.sqlite"
    if not index.is_file():
        return Check("out dir", "ok", f"{out} can be written (no sessions yet)")
    try:
        with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as db:
            count = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    except sqlite3.Error as exc:
        return Check("out dir", "warn", f"{index}: {exc}", "run ralph-tui sessions reindex")
    return Check("out dir", "ok", f"{out}: {counted(count, 'session')} indexed")


def ray_check() -> Check:
    if importlib.util.find_spec("ray") is None:
        return Check("ray", "ok", f"not installed (optional: {add_extra_command('ray')})")
    try:
        ray = importlib.import_module("ray")
    except Exception as exc:
        problem = f"installed but cannot be imported: {exc}"
        return Check("ray", "fail", problem, f"reinstall ray ({reinstall_command('ray')})")
    return Check("ray", "ok", f"ray {ray.__version__}")
