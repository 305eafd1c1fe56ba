"""Run every mode against a real OpenAI-compatible server; prints one JSON object.

Not a test: it needs a live server (``../shared/tools/local-llm/serve.sh`` starts one, with
SmolLM2-135M, on this machine). For each scenario it runs ``ralph-tui run --json`` as a user
would and reports how the run ended, and checks the two things a weak real model must not
break:

- the run ends cleanly — exit 0, 1 (passed, failed, timed out, capped) — with no traceback;
- the server's request count (``POST .../chat/completions`` lines added to its access log
  during the run) equals the usage ledger's ``calls``: nothing is sent unmetered.

    .venv/bin/python bench/real_server.py --base-url http://127.0.0.1:8011/v1 \\
        --model smollm2 [--server-log PATH] [--timeout 600] [--only qa,task,decompose]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SAMPLE_DOCUMENT = Path(__file__).parents[1] / "ralph_tui" / "data" / "sample_document.md"
QA_QUERY = "How often are the filters backwashed, and what triggers an early backwash?"
TASK_QUERY = "List the checks an operator makes at the start of a shift."
DECOMPOSE_QUERY = "Summarise the backwash rules, then list the alarms that stop a filter."
CHAT_REQUEST = "/chat/completions HTTP/1.1"

SCENARIOS: dict[str, list[str]] = {
    "qa": ["--mode", "qa", "--query", QA_QUERY],
    "task": ["--mode", "task", "--query", TASK_QUERY],
    "decompose": ["--mode", "task", "--decompose", "--query", DECOMPOSE_QUERY],
}


def chat_requests_logged(log: Path) -> int:
    """How many chat completion requests the server's access log shows so far."""
    if not log.exists():
        return 0
    with log.open(encoding="utf-8", errors="replace") as lines:
        return sum(1 for line in lines if "POST" in line and CHAT_REQUEST in line)


def run_scenario(name: str, args: argparse.Namespace, out_dir: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": args.base_url,
        "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "local"),
    }
    command = [
        sys.executable,
        "-m",
        "ralph_tui",
        "run",
        *SCENARIOS[name],
        "--doc",
        str(args.doc),
        "--generate-model",
        f"openai:{args.model}",
        "--validate-model",
        f"openai:{args.model}",
        "--maxIters",
        str(args.max_iters),
        *(["--timeout", str(args.timeout)] if args.timeout else []),
        "--out",
        str(out_dir / name),
        "--json",
        *args.extra,
    ]
    before = chat_requests_logged(args.server_log)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    time.sleep(0.5)  # the access log line is written after the response
    server_requests = chat_requests_logged(args.server_log) - before
    result = _parse_result(done.stdout)
    calls = (result.get("usage") or {}).get("calls")
    return {
        "scenario": name,
        "exit_code": done.returncode,
        "status": result.get("status"),
        "iterations": result.get("iterations"),
        "wall_s": round(elapsed, 1),
        "server_requests": server_requests,
        "ledger_calls": calls,
        "requests_match": calls == server_requests,
        "traceback": "Traceback" in done.stderr,
        "clean_end": done.returncode in (0, 1) and "Traceback" not in done.stderr,
        "stderr_tail": done.stderr.strip().splitlines()[-3:],
    }


def _parse_result(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.strip().splitlines()):
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            return parsed
    return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8011/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--doc", type=Path, default=SAMPLE_DOCUMENT)
    parser.add_argument("--server-log", type=Path, default=None)
    parser.add_argument("--max-iters", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=None, help="each run's --timeout")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("extra", nargs="*", help="more `ralph-tui run` flags (after --)")
    args = parser.parse_args()
    if args.server_log is None:
        port = args.base_url.rsplit(":", 1)[-1].split("/")[0]
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        args.server_log = cache / "ralph-local-llm" / f"server-{port}.log"
    with tempfile.TemporaryDirectory(prefix="ralph-real-") as tmp:
        runs = [run_scenario(name, args, Path(tmp)) for name in args.only.split(",")]
    print(json.dumps({"server": args.base_url, "model": args.model, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
