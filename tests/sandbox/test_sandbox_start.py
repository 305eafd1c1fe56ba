"""A sandbox starts fast: the child loads only what its first cell needs."""

from __future__ import annotations

import struct

from ralph_tui.sandbox import Sandbox
from ralph_tui.sandbox.child.confine import (
    ALLOW,
    ARCH_OFFSET,
    LOAD_WORD,
    RETURN,
    process_filter_bytes,
)

HEAVY_MODULES = (
    "os",
    "types",
    "json",
    "re",
    "enum",
    "ast",
    "threading",
    "collections",
    "functools",
    "typing",
    "asyncio",
    "traceback",
    "struct",
    "fcntl",
    "itertools",
    "_collections",
)
"""Each costs a child start milliseconds, a shared library's loading or a tenth of a
millisecond of building types (with what it loads in turn); none is needed to answer a cell
that does not use it."""


async def test_the_child_answers_its_first_cell_without_heavy_modules(sandbox: Sandbox) -> None:
    result = await sandbox.execute(
        f"import sys\nsorted(name for name in {HEAVY_MODULES!r} if name in sys.modules)"
    )
    assert (result.output, result.error) == ("[]\n", None)


async def test_a_heavy_module_a_cell_imports_works_as_usual(sandbox: Sandbox) -> None:
    result = await sandbox.execute(
        "import json, re, threading\n"
        "seen = []\n"
        "worker = threading.Thread(target=lambda: seen.append(re.findall('o', context)))\n"
        "worker.start(); worker.join()\n"
        "json.dumps(seen), threading.current_thread() is threading.main_thread()"
    )
    assert (result.output, result.error) == ('(\'[["o", "o"]]\', True)\n', None)


async def test_under_bwrap_the_launcher_installs_the_process_filter(sandbox: Sandbox) -> None:
    assert sandbox.isolation == "bwrap"
    result = await sandbox.execute(
        "import os, sys\n"
        "status = open('/proc/self/status').read()\n"
        "'ctypes' in sys.modules, 'Seccomp:\\t2' in status, 'NoNewPrivs:\\t1' in status"
    )
    assert (result.output, result.error) == ("(False, True, True)\n", None)
    bomb = await sandbox.execute("os.fork()")
    assert bomb.error is not None and "PermissionError" in bomb.error


def test_the_process_filter_is_an_array_of_struct_sock_filter() -> None:
    program = process_filter_bytes()
    assert program is not None, "no process filter for this machine's architecture"
    instructions = list(struct.iter_unpack("HBBI", program))
    assert len(instructions) * struct.calcsize("HBBI") == len(program)
    assert instructions[0] == (LOAD_WORD, 0, 0, ARCH_OFFSET)
    assert instructions[-1] == (RETURN, 0, 0, ALLOW)


async def test_the_channel_sits_above_the_descriptors_cells_use_and_is_closed_on_exec(
    sandbox: Sandbox,
) -> None:
    result = await sandbox.execute(
        "import os\n"
        "high = [int(name) for name in os.listdir('/proc/self/fd') if int(name) >= 100]\n"
        "[(fd, os.get_inheritable(fd)) for fd in high]"
    )
    assert (result.output, result.error) == ("[(100, False)]\n", None)
