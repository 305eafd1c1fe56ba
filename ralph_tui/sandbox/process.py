"""One sandbox child process, with framed non-blocking I/O over a socket pair.

The child's stdin, stdout and stderr are one end of a Unix stream socket pair: it carries
frames byte for byte in both directions (no line discipline, no size limit per line), and
whatever a launcher prints to stderr (bwrap's error message) arrives on the channel where
the host reports it. The child is started with ``subprocess`` so that, without a pre-exec
hook, it is spawned with ``vfork``: forking a host of hundreds of megabytes (the app) to
start a child costs tens of milliseconds, ``vfork`` well under one. Only a plan whose
launcher does not kill the child with the host (see ``LaunchPlan.dies_with_parent``) needs
the hook, and the fork. Reading is event-driven (the loop watches the socket); writing is
non-blocking and waits for room, so a child that stops reading cannot block the host.
Whatever way the child goes away (exit, crash, kill, garbage on the channel), it is reaped
and reported exactly once through ``on_lost``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import os
import signal
import socket
import subprocess
from collections.abc import Callable
from typing import Any

from ralph_tui.sandbox.child.framing import ChannelCorrupted, FrameDecoder, encode_frame
from ralph_tui.sandbox.launch import LaunchPlan

READ_CHUNK = 1 << 20
WRITE_CHUNK = 1 << 16
REAP_POLL_S = 0.002
REAP_PATIENCE_S = 2.0
PR_SET_PDEATHSIG = 1

# Loaded here because the pre-exec hook runs in the forked child, where loading is unsafe.
_LIBC = ctypes.CDLL(None, use_errno=True)


class ChildGone(Exception):
    """The child can no longer be written to."""


def _die_with_host(host_pid: int) -> None:
    """Runs in the child between fork and exec: the child is killed when the host dies."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != host_pid:  # the host died before the death signal was armed
        os._exit(1)


def children_of(pid: int) -> list[int]:
    """Pids whose parent is ``pid``, from ``/proc`` (for bwrap's inner processes)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses; fields resume after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def describe_exit(exit_status: int | None, signal_status: int | None) -> str:
    if signal_status is not None:
        return f"was killed by signal {signal_status} ({signal.Signals(signal_status).name})"
    if exit_status is not None and exit_status > 128:
        # bwrap reports a child killed by signal N as exit status 128 + N.
        try:
            name = signal.Signals(exit_status - 128).name
        except ValueError:
            return f"exited with status {exit_status}"
        return f"was killed by signal {exit_status - 128} ({name})"
    return f"exited with status {exit_status}"


class ChildProcess:
    """A running child: send frames, receive them through ``on_message``, signal, close."""

    def __init__(
        self,
        plan: LaunchPlan,
        on_message: Callable[[ChildProcess, dict[str, Any]], None],
        on_lost: Callable[[ChildProcess, str], None],
    ) -> None:
        self.plan = plan
        self.received_any = False
        self.stray_output = ""
        """Text the child wrote outside the protocol (a launcher's error message)."""
        self._on_message = on_message
        self._on_lost = on_lost
        self._loop = asyncio.get_running_loop()
        self._decoder = FrameDecoder()
        self._write_lock = asyncio.Lock()
        self._writable: asyncio.Future[None] | None = None
        self._stop_reason: str | None = None
        self._going = False
        self._interpreter_pid: int | None = None
        self._reaper: asyncio.Task[None] | None = None
        self._socket, child_end = socket.socketpair()
        argv = plan.argv
        pass_fds: tuple[int, ...] = ()
        if plan.process_filter is not None:
            # The filter is far smaller than a pipe's buffer: written whole before the start.
            filter_fd, filter_writer = os.pipe()
            os.write(filter_writer, plan.process_filter)
            os.close(filter_writer)
            argv, pass_fds = [argv[0], "--seccomp", str(filter_fd), *argv[1:]], (filter_fd,)
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=child_end.fileno(),
                stdout=child_end.fileno(),
                stderr=child_end.fileno(),
                env=plan.env,
                cwd=plan.cwd,
                start_new_session=True,
                pass_fds=pass_fds,
                preexec_fn=(
                    None
                    if plan.dies_with_parent
                    else functools.partial(_die_with_host, os.getpid())
                ),
            )
        except BaseException:
            self._socket.close()
            raise
        finally:
            child_end.close()
            for fd in pass_fds:
                os.close(fd)
        self._socket.setblocking(False)
        self._fd: int = self._socket.fileno()
        self._loop.add_reader(self._fd, self._on_readable)
        self.finished = self._loop.create_future()
        """Resolves once the child is reaped and reported lost."""

    @property
    def pid(self) -> int:
        """The pid of the process started (bwrap itself under bwrap)."""
        return self._process.pid

    @property
    def ending(self) -> bool:
        """The child is stopping or gone; ``finished`` resolves once it is reaped."""
        return self._going

    async def send(self, message: dict[str, Any]) -> None:
        """Write one frame; ``TypeError``/``ValueError`` if it cannot be encoded."""
        await self.send_frame(encode_frame(message))

    async def send_frame(self, data: bytes) -> None:
        """Write one frame already encoded (``encode_frame``)."""
        async with self._write_lock:
            offset = 0
            while offset < len(data):
                if self._going:
                    raise ChildGone(self._stop_reason or "the child process ended")
                try:
                    offset += os.write(self._fd, data[offset : offset + WRITE_CHUNK])
                except BlockingIOError:
                    await self._wait_writable()
                except OSError as exc:
                    raise ChildGone(str(exc)) from None

    def interrupt(self) -> None:
        """SIGINT to the interpreter (under bwrap, the grandchild of the bwrap process)."""
        pid = self._find_interpreter()
        if pid is not None and not self._going:
            _signal(pid, signal.SIGINT)

    def stop(self, reason: str) -> None:
        """Kill the child; it will be reported lost with ``reason``."""
        if not self._going:
            self._stop_reason = reason
        self._kill()

    async def close(self) -> None:
        """Kill the child if needed and wait until it is reaped."""
        self.stop("was closed")
        await asyncio.shield(self.finished)

    def _on_readable(self) -> None:
        # The loop has just reported the socket readable, so one non-blocking read is enough.
        try:
            data = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # the child's end was reset: treated as its end
            data = b""
        if not data:
            self._begin_loss()
            return
        try:
            messages = self._decoder.feed(data)
        except ChannelCorrupted as exc:
            self.stray_output = exc.preview.decode("utf-8", "replace").strip()
            self.stop(
                f"wrote bytes outside the protocol channel ({self.stray_output!r}), "
                "so it was stopped"
            )
            return
        for message in messages:
            self.received_any = True
            if not self._going:
                self._on_message(self, message)

    async def _wait_writable(self) -> None:
        self._writable = self._loop.create_future()
        self._loop.add_writer(self._fd, self._mark_writable)
        try:
            await self._writable
        finally:
            self._loop.remove_writer(self._fd)
            self._writable = None

    def _mark_writable(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def _find_interpreter(self) -> int | None:
        if self._interpreter_pid is None:
            if self.plan.isolation != "bwrap":
                self._interpreter_pid = self.pid
            else:
                inner = self._sandbox_init()
                found = children_of(inner) if inner is not None else []
                self._interpreter_pid = found[0] if found else None
        return self._interpreter_pid

    def _sandbox_init(self) -> int | None:
        found = children_of(self.pid)
        return found[0] if found else None

    def _kill(self) -> None:
        if self._going:
            return
        # Under bwrap, killing pid 1 of the sandbox's namespace takes every process in it
        # down and lets bwrap reap it; killing bwrap first would orphan that process.
        inner = self._sandbox_init() if self.plan.isolation == "bwrap" else None
        _signal(inner if inner is not None else self.pid, signal.SIGKILL)
        self._begin_loss()

    def _begin_loss(self) -> None:
        if self._going:
            return
        self._going = True
        self._loop.remove_reader(self._fd)
        self._mark_writable()
        self._reaper = self._loop.create_task(self._reap())

    async def _reap(self) -> None:
        waited = 0.0
        while (status := self._process.poll()) is None:
            if waited >= REAP_PATIENCE_S:
                _signal(self.pid, signal.SIGKILL)
            await asyncio.sleep(REAP_POLL_S)
            waited += REAP_POLL_S
        self._socket.close()
        reason = self._stop_reason or (
            describe_exit(None, -status) if status < 0 else describe_exit(status, None)
        )
        self.finished.set_result(None)
        self._on_lost(self, reason)


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)
