"""Length-prefixed JSON frames: the one wire format between the sandbox host and its child.

Every message is a fixed 8-byte header (a 4-byte magic and the payload length, big-endian)
followed by a UTF-8 JSON object. Nothing is line-based, so payload size and content never
matter to the transport. Bytes that do not start with the magic mean something other than
the protocol wrote to the channel; the reader raises ``ChannelCorrupted`` instead of guessing.

This module is shared by the host and the child, so it imports only the standard library.
It encodes and decodes JSON with ``_json``, the C half of the ``json`` package, which is
what ``json.dumps`` and ``json.loads`` themselves run: importing the package would also load
``re`` and ``enum`` for its pure-Python fallbacks, about 8 ms of every child's start. The
header's length is ``int.to_bytes``, not ``struct``: a child start need not load ``struct``
and the shared library behind it.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"RTSB"
LENGTH_BYTES = 4
HEADER_BYTES = len(MAGIC) + LENGTH_BYTES
MAX_FRAME_BYTES = 1 << 30
PREVIEW_BYTES = 400


class ChannelCorrupted(Exception):
    """The byte stream is not a sequence of frames; ``preview`` holds the offending bytes."""

    def __init__(self, reason: str, preview: bytes | bytearray) -> None:
        super().__init__(f"{reason}: {preview[:PREVIEW_BYTES]!r}")
        self.reason = reason
        self.preview = bytes(preview[:PREVIEW_BYTES])


class _DecodeOptions:
    """What ``json.loads`` gives its scanner by default, except that ``NaN`` and ``Infinity``
    are refused (the encoder never writes them)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")


# The stub types the argument as a scanner; CPython reads the attributes above from it.
_scan = _json.make_scanner(_DecodeOptions())  # type: ignore[arg-type]


def _not_serializable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode_json(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``."""
    encoder = _json.make_encoder(
        {}, _not_serializable, _json.encode_basestring, None, ":", ",", False, False, False
    )
    return "".join(encoder(value, 0))


def decode_json(text: str) -> Any:
    """``json.loads(text)`` for text with no white space around the value; ``ValueError``
    if it is not one JSON value."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        raise ValueError("no JSON value at the start") from None
    if end != len(text):
        raise ValueError(f"extra data after the JSON value at {end}")
    return value


def encode_frame(message: dict[str, Any]) -> bytes:
    """One message as header + payload. Raises ``TypeError``/``ValueError`` for non-JSON data."""
    data = encode_json(message).encode("utf-8", "surrogatepass")
    if len(data) > MAX_FRAME_BYTES:
        raise ValueError(f"message of {len(data):,} bytes exceeds the {MAX_FRAME_BYTES:,}-byte cap")
    return frame_header(len(data)) + data


def frame_header(length: int) -> bytes:
    """The header of a frame whose payload is ``length`` bytes: the magic, the length."""
    return MAGIC + length.to_bytes(LENGTH_BYTES, "big")


class FrameDecoder:
    """Turns a byte stream, fed in chunks of any size, back into messages.

    Whole frames are decoded straight from the chunk that holds them; only an incomplete
    tail is kept, in a buffer that grows in place, so a large frame arriving in many small
    chunks costs linear time.
    """

    def __init__(self) -> None:
        self._partial = bytearray()
        self._needed = 0

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add received bytes; return every message they complete, in order."""
        if self._partial:
            self._partial += data
            if len(self._partial) < self._needed:
                return []
            data = bytes(self._partial)
            self._partial.clear()
        messages: list[dict[str, Any]] = []
        offset = 0
        while offset < len(data):
            head = data[offset : offset + HEADER_BYTES]
            if not head.startswith(MAGIC[: len(head)]):
                raise ChannelCorrupted("bytes outside the frame protocol", data[offset:])
            end = offset + HEADER_BYTES
            if len(head) == HEADER_BYTES:
                length = int.from_bytes(head[len(MAGIC) :], "big")
                if length > MAX_FRAME_BYTES:
                    raise ChannelCorrupted("frame length out of range", data[offset:])
                end += length
            if end > len(data) or len(head) < HEADER_BYTES:
                self._partial += data[offset:]
                self._needed = end - offset
                return messages
            messages.append(_decode_payload(data[offset + HEADER_BYTES : end]))
            offset = end
        return messages


def _decode_payload(payload: bytes) -> dict[str, Any]:
    try:
        message = decode_json(payload.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ChannelCorrupted("frame payload is not JSON", payload) from None
    if not isinstance(message, dict):
        raise ChannelCorrupted("frame payload is not a JSON object", payload)
    return message
