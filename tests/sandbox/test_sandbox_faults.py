"""Timeouts, crashes and a corrupted channel: detected, reported, recovered; the host survives."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import OpenSandbox
from sandbox_probes import descendants, running, zombie_children

from ralph_tui.sandbox import Sandbox, SandboxLimits, SandboxStartError

STATE_LOST = "every variable, import and function defined in earlier cells is lost"


async def test_timeout_interrupts_and_keeps_state(sandbox: Sandbox) -> None:
    await sandbox.execute("kept = 'still here'")
    result = await sandbox.execute("import time\nprint('before')\ntime.sleep(30)")
    assert result.timed_out and not result.restarted
    assert result.output == "before\n"
    assert result.error is not None
    assert "KeyboardInterrupt: cell exceeded 0.5 s" in result.error
    assert "variables from this and earlier cells are kept" in result.error
    assert result.duration_ms < 2000
    after = await sandbox.execute("kept, time.__name__")
    assert after.output == "('still here', 'time')\n" and not after.timed_out


async def test_interrupt_caught_once_still_reports_the_timeout(sandbox: Sandbox) -> None:
    code = "import time\ntry:\n    time.sleep(30)\n"
    code += "except KeyboardInterrupt as e:\n    print('caught', e)"
    result = await sandbox.execute(code)
    assert result.timed_out and not result.restarted
    assert result.output == "caught cell exceeded 0.5 s\n"
    assert result.error == (
        "The cell was interrupted after 0.5 s; variables from this and earlier cells are kept."
    )


async def test_busy_loop_is_interrupted(sandbox: Sandbox) -> None:
    result = await sandbox.execute("n = 0\nwhile True:\n    n += 1")
    assert result.timed_out and not result.restarted
    assert (await sandbox.execute("n > 0")).output == "True\n"


@pytest.mark.parametrize(
    "stubborn",
    [
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(30)",
        "import time\nwhile True:\n    try:\n        time.sleep(30)\n"
        "    except KeyboardInterrupt:\n        pass",
    ],
    ids=["sigint-ignored", "keyboard-interrupt-caught"],
)
async def test_cell_ignoring_sigint_is_killed_and_restarted(
    sandbox: Sandbox, stubborn: str
) -> None:
    await sandbox.execute("lost_soon = 1")
    result = await sandbox.execute(stubborn)
    assert result.timed_out and result.restarted
    assert result.error is not None
    assert "did not stop within 0.5 s of KeyboardInterrupt" in result.error
    assert STATE_LOST in result.error and "`context`" in result.error
    gone = await sandbox.execute("lost_soon")
    assert gone.error is not None and "NameError" in gone.error
    assert (await sandbox.execute("context")).output == "'The quick brown fox.'\n"
    assert zombie_children() == []


@pytest.mark.parametrize(
    ("crash", "described"),
    [
        ("import os\nos._exit(3)", "exited with status 3"),
        ("import ctypes\nctypes.string_at(0)", "was killed by signal 11 (SIGSEGV)"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "was killed by signal 9"),
    ],
    ids=["exit", "segfault", "killed"],
)
async def test_crash_is_reported_and_the_child_restarted(
    sandbox: Sandbox, crash: str, described: str
) -> None:
    await sandbox.execute("lost_soon = 1")
    result = await sandbox.execute(f"print('about to crash')\n{crash}")
    assert result.restarted and not result.timed_out
    assert result.error is not None
    assert result.error.startswith(f"While running this cell, the sandbox process {described}")
    assert STATE_LOST in result.error
    assert (await sandbox.execute("len(context)")).output == "20\n"
    assert "NameError" in ((await sandbox.execute("lost_soon")).error or "")
    assert zombie_children() == []


async def test_death_between_cells_is_reported_with_the_next_cell(sandbox: Sandbox) -> None:
    code = "import os, threading\nthreading.Timer(0.1, os._exit, args=(7,)).start()"
    assert (await sandbox.execute(code)).error is None
    await asyncio.sleep(0.5)
    result = await sandbox.execute("print('ran'); context[:3]")
    assert result.restarted
    assert result.output == "ran\n'The'\n"
    assert result.error is not None
    assert result.error.startswith(
        "After the previous cell, the sandbox process exited with status 7"
    )


async def test_garbage_on_the_channel_is_detected(sandbox: Sandbox) -> None:
    code = (
        "import os\n"
        "for fd in range(3, 256):\n"
        "    try:\n"
        "        os.write(fd, b'garbage')\n"
        "    except OSError:\n"
        "        pass"
    )
    result = await sandbox.execute(code)
    assert result.restarted
    assert result.error is not None
    assert "wrote bytes outside the protocol channel ('garbage" in result.error
    assert (await sandbox.execute("1 + 1")).output == "2\n"


async def test_writes_to_stdout_fd_cannot_corrupt_the_channel(sandbox: Sandbox) -> None:
    result = await sandbox.execute("import os\nos.write(1, b'RTSB garbage'); os.write(2, b'!')")
    assert result.output == "RTSB garbage!1\n"
    assert not result.restarted


async def test_cancelled_cell_stops_the_child_and_next_cell_restarts(sandbox: Sandbox) -> None:
    await sandbox.execute("kept = 1")
    task = asyncio.create_task(sandbox.execute("import time\ntime.sleep(0.3)"))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = await sandbox.execute("'kept' in globals()")
    assert result.restarted and result.output == "False\n"
    assert result.error is not None
    assert "host cancelled the cell it was running" in result.error


async def test_close_reaps_the_child_and_removes_the_scratch_dir(open_sandbox: OpenSandbox) -> None:
    lasting = set(descendants(os.getpid()))  # left by earlier tests for the session
    sandbox = await open_sandbox()
    await sandbox.execute("open('note.txt', 'w').write('x')")
    assert (sandbox.work_dir / "note.txt").read_text() == "x"
    inner = [pid for pid in descendants(os.getpid()) if pid not in lasting]
    assert inner, "the child processes should be visible while open"
    await sandbox.close()
    await sandbox.close()
    assert not sandbox.work_dir.parent.exists()
    assert running(inner) == []
    assert zombie_children() == []
    with pytest.raises(RuntimeError, match="closed"):
        await sandbox.execute("1")


async def test_child_dies_with_its_host_and_its_scratch_is_swept_later(
    tmp_path: Path, open_sandbox: OpenSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A temp dir of the test's own: a sandbox started meanwhile by anything else on the
    # machine would sweep the killed host's scratch from the shared one before it is looked at.
    private = tmp_path / "tmp"
    private.mkdir()
    host_script = tmp_path / "host.py"
    host_script.write_text(
        "import asyncio\n"
        "from ralph_tui.sandbox import Sandbox\n"
        "async def main():\n"
        "    sandbox = await Sandbox.start()\n"
        "    print(sandbox.isolation, sandbox.work_dir.parent, flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    host = subprocess.Popen(
        [sys.executable, str(host_script)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(private)},
    )
    try:
        assert host.stdout is not None
        isolation, scratch = host.stdout.readline().split()
        assert isolation == "bwrap"
        sandbox_processes = descendants(host.pid)
        assert len(sandbox_processes) >= 2
        host.send_signal(signal.SIGKILL)
        host.wait()
        deadline = time.monotonic() + 5
        while running(sandbox_processes) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert running(sandbox_processes) == []
    finally:
        host.kill()
        host.wait()
    # A host killed outright cannot clean up; the next sandbox started anywhere does.
    assert Path(scratch).exists() and Path(scratch).parent == private
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    await open_sandbox()
    assert not Path(scratch).exists()


async def test_a_child_that_does_not_start_in_time_is_an_error_without_leftovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A temp folder of its own: other processes' sandboxes come and go in the shared one.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = set(tmp_path.glob("ralph-sandbox-*"))
    # Processes an earlier test left for the session (multiprocessing's resource tracker).
    lasting = set(descendants(os.getpid()))
    with pytest.raises(SandboxStartError, match="did not start within"):
        await Sandbox.start(limits=SandboxLimits(start_timeout_s=0.001))
    assert set(tmp_path.glob("ralph-sandbox-*")) == before
    assert zombie_children() == []
    assert set(descendants(os.getpid())) <= lasting
