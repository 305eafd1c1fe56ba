"""Length-prefixed JSON frames: the one wire format between the sandbox host and its child.

Every message is a fixed 8-byte header (a 4-byte magic and the payload length, big-endian)
followed by a UTF-8 JSON object. Nothing is line-based, so payload size and content never
matter to the transport. Bytes that do not start with the magic mean something other than
the protocol wrote to the channel; the reader raises ``ChannelCorrupted`` instead of guessing.

This module is shared by the host and the child, so it imports only the standard library.
"""

from __future__ import annotations

import json
import struct

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"RTSB"
HEADER = struct.Struct(">4sI")
MAX_FRAME_BYTES = 1 << 30
PREVIEW_BYTES = 400


class ChannelCorrupted(Exception):
    """The byte stream is not a sequence of frames; ``preview`` holds the offending bytes."""

    def __init__(self, reason: str, preview: bytes | bytearray) -> None:
        super().__init__(f"{reason}: {preview[:PREVIEW_BYTES]!r}")
        self.reason = reason
        self.preview = bytes(preview[:PREVIEW_BYTES])


def encode_frame(message: dict[str, Any]) -> bytes:
    """One message as header + payload. Raises ``TypeError``/``ValueError`` for non-JSON data."""
    payload = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    data = payload.encode("utf-8", "surrogatepass")
    if len(data) > MAX_FRAME_BYTES:
        raise ValueError(f"message of {len(data):,} bytes exceeds the {MAX_FRAME_BYTES:,}-byte cap")
    return HEADER.pack(MAGIC, len(data)) + data


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
            head = data[offset : offset + HEADER.size]
            if not head.startswith(MAGIC[: len(head)]):
                raise ChannelCorrupted("bytes outside the frame protocol", data[offset:])
            end = offset + HEADER.size
            if len(head) == HEADER.size:
                length = HEADER.unpack(head)[1]
                if length > MAX_FRAME_BYTES:
                    raise ChannelCorrupted("frame length out of range", data[offset:])
                end += length
            if end > len(data) or len(head) < HEADER.size:
                self._partial += data[offset:]
                self._needed = end - offset
                return messages
            messages.append(_decode_payload(data[offset + HEADER.size : end]))
            offset = end
        return messages


def _decode_payload(payload: bytes) -> dict[str, Any]:
    try:
        message = json.loads(payload.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ChannelCorrupted("frame payload is not JSON", payload) from None
    if not isinstance(message, dict):
        raise ChannelCorrupted("frame payload is not a JSON object", payload)
    return message
