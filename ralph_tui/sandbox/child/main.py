"""Entry point of the sandbox child: take over stdio, load the globals, confine, serve cells.

The host starts it as ``python -I -S -B -X utf8 -c BOOT CHILD_PARENT INIT_DIR [SITE_DIR ...]``
(see ``ralph_tui.sandbox.launch``) and sends it the manifest (``load``) as its first message:
the globals, the names of the host functions and the limits, with the text globals in files
of ``INIT_DIR``. ``-I -S`` keep the user's environment, ``site`` and its
``.pth`` files out; the host's site-packages directories (read-only under bwrap) are appended
to ``sys.path`` explicitly, so third-party packages such as numpy stay importable.
"""

from __future__ import annotations

import builtins
import posix
import sys

from .cells import CellRunner
from .channel import Channel, ChannelClosed
from .confine import apply_limits
from .interrupts import Interrupts
from .reads import track_reads

# ``posix`` is the C module that ``os`` wraps: ``os`` itself loads ``posixpath``, ``stat``
# and ``_collections_abc``, about 1 ms of every start, for nothing the child needs. Modules
# that are shared libraries (``fcntl``, ``mmap``) cost a fraction of a millisecond each to
# load, so the child does without them or loads them when it needs them.
TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from typing import Any

CHANNEL_FD_MIN = 100


def take_over_stdio() -> tuple[int, int]:
    """Move the channel to a private descriptor; point fd 0 at /dev/null and fds 1-2 at a file.

    Cell code that writes to fd 1 or 2 (``os.write``, C extensions) then lands in the output
    file, which is read back as part of the cell's output, and cannot corrupt the framing.
    """
    channel_fd = free_fd(CHANNEL_FD_MIN)
    posix.dup2(1, channel_fd, inheritable=False)
    null = posix.open("/dev/null", posix.O_RDONLY)
    posix.dup2(null, 0)
    posix.close(null)
    output_fd = posix.memfd_create("cell-output", posix.MFD_CLOEXEC)
    posix.dup2(output_fd, 1)
    posix.dup2(output_fd, 2)
    return channel_fd, output_fd


def free_fd(lowest: int) -> int:
    """The lowest descriptor from ``lowest`` up that is not open (what ``F_DUPFD`` picks;
    the child has one thread while it starts, so nothing can take it meanwhile)."""
    fd = lowest
    while True:
        try:
            posix.fstat(fd)
        except OSError:
            return fd
        fd += 1


def read_text(path: str) -> str:
    """Decode a global's file straight from the page cache (no intermediate bytes copy)."""
    import mmap  # only a sandbox given a text global needs it

    with open(path, "rb") as file:
        if posix.fstat(file.fileno()).st_size == 0:
            return ""
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return str(mapped, "utf-8", "surrogatepass")


def host_function(channel: Channel, name: str) -> Any:
    """The cell-side stand-in for host function ``name``: a blocking call over the channel."""

    def call_host(*args: Any, **kwargs: Any) -> Any:
        return channel.call(name, list(args), kwargs)

    call_host.__name__ = call_host.__qualname__ = name
    call_host.__doc__ = f"Runs the host function `{name}` and returns its result."
    return call_host


def load_namespace(
    manifest: dict[str, Any], folder: str, channel: Channel
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cells' globals (values and host functions) and the limits, from the manifest."""
    if manifest.get("op") != "load":
        raise RuntimeError(f"expected the manifest, got {manifest.get('op')!r}")
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    for name, spec in manifest["globals"].items():
        if "file" in spec:
            namespace[name] = read_text(f"{folder}/{spec['file']}")
        else:
            namespace[name] = spec["value"]
    for name in manifest["functions"]:
        namespace[name] = host_function(channel, name)
    return namespace, manifest["limits"]


def main() -> None:
    init_folder, site_dirs = sys.argv[2], sys.argv[3:]
    channel_fd, output_fd = take_over_stdio()
    interrupts = Interrupts()
    channel = Channel(channel_fd, interrupts)
    try:
        manifest = channel.next_control()
    except ChannelClosed:
        return  # the host gave up on this child before sending it anything
    try:
        sys.path.extend(site_dirs)
        namespace, limits = load_namespace(manifest, init_folder, channel)
        apply_limits(limits)
    except BaseException as exc:  # any failure to start is reported, then the child exits
        import traceback

        channel.send({"op": "failed", "error": "".join(traceback.format_exception_only(exc))})
        raise SystemExit(1) from None
    runner = CellRunner(
        namespace, interrupts, output_limit=limits["max_output_chars"], fd_output=output_fd
    )
    channel.send({"op": "ready"})
    # Tracking copies the document (a ``str`` subclass cannot take it over), and the compiler
    # is prepared: both done once the host knows the child is ready, while the model writes
    # its first cell.
    reads = track_reads(namespace, limits["max_output_chars"])
    runner.prepare()
    while True:
        try:
            message = channel.next_control()
        except ChannelClosed:
            return
        if message.get("op") != "exec":
            raise RuntimeError(f"unexpected message from the host: {message.get('op')!r}")
        done = runner.run(message["code"], message["timeout_s"])
        channel.send({**done, "reads": reads.take()})
