"""How the sandbox child is started: isolation level, command line, environment.

Isolation levels, strongest first:

- ``bwrap``: new user, pid, network (empty), IPC, UTS and cgroup namespaces; a read-only
  view of ``/usr``, the interpreter's prefix and the host's site-packages; the scratch
  ``work`` directory as the only writable host path (at ``/sandbox``); a private size-capped
  ``/tmp``; no home, no project directory, no ``.env``, no output directory.
- ``unshare-net``: only a new, empty network namespace (``unshare --net``); the child
  sees the host's files with the host user's rights.
- ``rlimits-only``: nothing but the child's own rlimits and process ban.

Every level runs the child with a scrubbed environment (no API keys, nothing inherited).

What a plan is made of that cannot change while the host runs (the interpreter, the
site-packages, the system mounts) is worked out once per process: a start waits for none of
it. Which launcher ``PATH`` gives is looked up at every start, since ``PATH`` may change.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ralph_tui.sandbox.bytecode import compiled_child
from ralph_tui.sandbox.child.confine import FILTER_BY_LAUNCHER, process_filter_bytes
from ralph_tui.sandbox.limits import Isolation, SandboxLimits
from ralph_tui.sandbox.scratch import Scratch

ISOLATION_LEVELS: tuple[Isolation, ...] = ("bwrap", "unshare-net", "rlimits-only")

CHILD_PACKAGE = Path(__file__).resolve().with_name("child")
MOUNT_ROOT = "/opt/ralph-sandbox"
"""Inside bwrap: the child package, site-packages and the read-only ``init`` directory."""
WORK_MOUNT = "/sandbox"
"""Inside bwrap: the writable working directory (the scratch ``work`` directory)."""
PYTHON_FLAGS = ("-I", "-S", "-B", "-X", "utf8")
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from child.main import main; main()"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")


class IsolationUnavailable(Exception):
    """This isolation level cannot run here; the next weaker one may."""


@dataclass(frozen=True)
class LaunchPlan:
    """One way to start the child: its command line, environment and working directory.

    ``dies_with_parent``: the launcher itself kills the child when the host dies (bwrap's
    ``--die-with-parent``), so the host need not arm that between fork and exec.
    ``process_filter``: the child's seccomp filter, for the launcher to install (bwrap reads
    it from a descriptor given with ``--seccomp``); ``None``: the child installs it itself.
    """

    isolation: Isolation
    argv: list[str]
    env: dict[str, str]
    cwd: str
    dies_with_parent: bool = False
    process_filter: bytes | None = None


def plan_launch(isolation: Isolation, scratch: Scratch, limits: SandboxLimits) -> LaunchPlan:
    """The command line for ``isolation``; ``IsolationUnavailable`` if its tool is missing."""
    if isolation == "bwrap":
        return _bwrap_plan(scratch, limits)
    host_command = [
        interpreter(),
        *PYTHON_FLAGS,
        "-c",
        BOOT,
        str(compiled_child(CHILD_PACKAGE).parent),
        str(scratch.init),
        *site_packages(),
    ]
    # Only a child outside bwrap (which gives its child a private /tmp) needs this one.
    scratch.tmp.mkdir(exist_ok=True)
    env = sandbox_env(home=str(scratch.work), tmp=str(scratch.tmp))
    if isolation == "rlimits-only":
        return LaunchPlan(isolation, host_command, env, str(scratch.work))
    unshare = shutil.which("unshare")
    if unshare is None:
        raise IsolationUnavailable("`unshare` not found")
    # Without root, a network namespace needs a user namespace to be allowed.
    as_user = [] if os.geteuid() == 0 else ["--map-root-user"]
    argv = [unshare, *as_user, "--net", "--", *host_command]
    return LaunchPlan(isolation, argv, env, str(scratch.work))


def _bwrap_plan(scratch: Scratch, limits: SandboxLimits) -> LaunchPlan:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise IsolationUnavailable("`bwrap` not found")
    sites = site_packages()
    site_mounts = [f"{MOUNT_ROOT}/site-{index}" for index in range(len(sites))]
    options = bwrap_options(bwrap)
    # Older bwrap (before 0.8) lacks these two; it still isolates, a little less tightly.
    no_nested_userns = ["--unshare-user", "--disable-userns"]
    tmp_size = ["--size", str(limits.file_bytes)]
    argv = [
        bwrap,
        "--unshare-all",
        *(no_nested_userns if "--disable-userns" in options else []),
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        *_system_mounts(),
        "--ro-bind",
        str(compiled_child(CHILD_PACKAGE)),
        f"{MOUNT_ROOT}/child",
    ]
    for source, target in zip(sites, site_mounts, strict=True):
        argv += ["--ro-bind", source, target]
    argv += ["--ro-bind", str(scratch.init), f"{MOUNT_ROOT}/init"]
    argv += ["--bind", str(scratch.work), WORK_MOUNT]
    argv += ["--proc", "/proc", "--dev", "/dev", *(tmp_size if "--size" in options else [])]
    argv += ["--tmpfs", "/tmp", "--remount-ro", "/", "--chdir", WORK_MOUNT, "--"]
    argv += [interpreter(), *PYTHON_FLAGS, "-c", BOOT, MOUNT_ROOT]
    argv += [f"{MOUNT_ROOT}/init", *site_mounts]
    env = sandbox_env(home=WORK_MOUNT, tmp="/tmp")
    # Installed by bwrap, the filter spares every child start loading ctypes to install it.
    process_filter = process_filter_bytes() if "--seccomp" in options else None
    if process_filter is not None:
        env[FILTER_BY_LAUNCHER[0]] = FILTER_BY_LAUNCHER[1]
    return LaunchPlan(
        "bwrap",
        argv,
        env,
        str(scratch.work),
        dies_with_parent=True,
        process_filter=process_filter,
    )


@functools.cache
def bwrap_options(bwrap: str) -> frozenset[str]:
    """The options this bwrap accepts, from its ``--help`` (asked once per binary)."""
    try:
        shown = subprocess.run(
            [bwrap, "--help"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(re.findall(r"--[a-z0-9-]+", shown.stdout + shown.stderr))


@functools.cache
def _system_mounts() -> tuple[str, ...]:
    """Read-only ``/usr``, the interpreter's prefix, and the usual top-level links into them."""
    args = ["--ro-bind", "/usr", "/usr"]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_FILES:
        args += ["--ro-bind-try", path, path]
    prefix = os.path.realpath(sys.base_prefix)
    if not _is_within(prefix, "/usr"):
        args += ["--ro-bind", prefix, prefix]
    return tuple(args)


@functools.cache
def interpreter() -> str:
    """The base interpreter (not a venv's launcher), which runs without the venv around it."""
    executable = os.path.realpath(sys.executable)
    if _is_within(executable, os.path.realpath(sys.base_prefix)):
        return executable
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return os.path.join(sys.base_prefix, "bin", f"python{version}")


@functools.cache
def site_packages() -> tuple[str, ...]:
    """The host's site-packages directories, for third-party imports (numpy) in the child."""
    found: list[str] = []
    for path in site.getsitepackages():
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in found:
            found.append(real)
    return tuple(found)


def sandbox_env(*, home: str, tmp: str) -> dict[str, str]:
    """The child's whole environment: nothing of the host's is passed through."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": home,
        "TMPDIR": tmp,
        # BLAS thread pools reserve address space per thread and hang on import under a
        # tight RLIMIT_AS.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
