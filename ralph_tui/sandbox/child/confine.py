"""Resource limits and the ban on new processes, applied by the child to itself.

They are applied after the globals are loaded and before the first cell, and cannot be
lifted by cell code: hard limits only go down without privileges in the host's user
namespace, and a seccomp filter cannot be removed.

Processes: ``RLIMIT_NPROC`` bounds them only for non-root users (the kernel exempts uid 0,
and the sandbox's uid 0 is the host's when the host runs as root). So a seccomp filter also
refuses every new process (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``) while
threads still work: a fork bomb fails on its first fork whoever runs the host.

Under bwrap the launcher installs that filter (``--seccomp``, from ``process_filter_bytes``)
just before it starts the interpreter, and says so in the environment; the child then only
checks that a filter is in place, and never loads ``ctypes`` (milliseconds of every start).
"""

from __future__ import annotations

import posix  # ``os`` without the modules it loads (see ``main``)
import resource
import sys

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    import signal as _signal
    from typing import Any
else:
    import _signal  # ``signal`` without the ``enum`` it loads (see ``interrupts``)

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
CLONE_THREAD = 0x10000
X32_SYSCALL_BIT = 0x40000000

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
LOAD_WORD = 0x20
JUMP_EQUAL = 0x15
JUMP_AT_LEAST = 0x35
JUMP_BITS_SET = 0x45
RETURN = 0x06
ALLOW = 0x7FFF0000
FAIL_WITH = 0x00050000
EPERM = 1
ENOSYS = 38

FILTER_BY_LAUNCHER = ("RALPH_SANDBOX_PROCESS_FILTER", "launcher")
"""The environment entry saying the launcher has installed the process filter."""

# seccomp_data offsets: syscall number, audit arch, low word of the first argument.
NR_OFFSET = 0
ARCH_OFFSET = 4
ARG0_OFFSET = 16


class _ProcessSyscalls:
    """Audit arch and syscall numbers of the process-creating calls on one architecture."""

    def __init__(self, arch: int, clone: int, clone3: int, plain: tuple[int, ...]) -> None:
        self.arch = arch
        self.clone = clone
        self.clone3 = clone3
        self.plain = plain


SYSCALLS = {
    "x86_64": _ProcessSyscalls(0xC000003E, clone=56, clone3=435, plain=(57, 58)),
    "aarch64": _ProcessSyscalls(0xC00000B7, clone=220, clone3=435, plain=()),
}


def apply_limits(limits: dict[str, Any]) -> None:
    """Set the rlimits (soft = hard) and refuse new processes."""
    # Writes past the file-size limit then fail with EFBIG instead of killing the child.
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)
    for name, value in (
        ("RLIMIT_AS", limits["memory_bytes"]),
        ("RLIMIT_CPU", limits["cpu_seconds"]),
        ("RLIMIT_FSIZE", limits["file_bytes"]),
        ("RLIMIT_NOFILE", limits["open_files"]),
        ("RLIMIT_NPROC", limits["processes"]),
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    marker, installed = FILTER_BY_LAUNCHER
    if posix.environ.get(marker.encode()) != installed.encode() or not filter_in_place():
        deny_new_processes()


def filter_in_place() -> bool:
    """A seccomp filter confines this process (``Seccomp: 2`` in its status)."""
    try:
        with open("/proc/self/status", "rb") as file:
            return b"\nSeccomp:\t2\n" in file.read()
    except OSError:
        return False


INSTRUCTION_BYTES = 8
"""``struct sock_filter``: a 16-bit code, two 8-bit jump offsets and a 32-bit value, in the
machine's byte order, without padding. Spelled out with ``int.to_bytes``: ``struct`` and the
shared library behind it would cost every child start a fraction of a millisecond."""


def _instruction(code: int, jump_true: int, jump_false: int, value: int) -> bytes:
    order = sys.byteorder
    return code.to_bytes(2, order) + bytes((jump_true, jump_false)) + value.to_bytes(4, order)


def process_filter(calls: _ProcessSyscalls) -> list[bytes]:
    """The BPF program: threads pass, every other way to start a process fails."""
    program = [
        _instruction(LOAD_WORD, 0, 0, ARCH_OFFSET),
        _instruction(JUMP_EQUAL, 1, 0, calls.arch),
        _instruction(RETURN, 0, 0, FAIL_WITH | ENOSYS),
        _instruction(LOAD_WORD, 0, 0, NR_OFFSET),
        # x32 numbers would be another route to the same calls on x86_64.
        _instruction(JUMP_AT_LEAST, 0, 1, X32_SYSCALL_BIT),
        _instruction(RETURN, 0, 0, FAIL_WITH | ENOSYS),
        # clone3 hides its flags in memory; ENOSYS makes libc fall back to clone for threads.
        _instruction(JUMP_EQUAL, 0, 1, calls.clone3),
        _instruction(RETURN, 0, 0, FAIL_WITH | ENOSYS),
    ]
    for number in calls.plain:
        program += [
            _instruction(JUMP_EQUAL, 0, 1, number),
            _instruction(RETURN, 0, 0, FAIL_WITH | EPERM),
        ]
    program += [
        _instruction(JUMP_EQUAL, 0, 3, calls.clone),
        _instruction(LOAD_WORD, 0, 0, ARG0_OFFSET),
        _instruction(JUMP_BITS_SET, 1, 0, CLONE_THREAD),
        _instruction(RETURN, 0, 0, FAIL_WITH | EPERM),
        _instruction(RETURN, 0, 0, ALLOW),
    ]
    return program


def process_filter_bytes() -> bytes | None:
    """The process filter for this machine as ``struct sock_filter`` array bytes (what
    ``bwrap --seccomp`` reads); ``None`` on an architecture without a table."""
    calls = SYSCALLS.get(posix.uname().machine)
    return None if calls is None else b"".join(process_filter(calls))


def deny_new_processes() -> None:
    """Install the process filter; on an architecture without a table, rely on RLIMIT_NPROC."""
    program = process_filter_bytes()
    if program is None:
        return
    import ctypes  # only where no launcher installed the filter

    class FilterProgram(ctypes.Structure):
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

    code = ctypes.create_string_buffer(program)
    fprog = FilterProgram(len(program) // INSTRUCTION_BYTES, ctypes.addressof(code))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
