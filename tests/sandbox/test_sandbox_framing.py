"""The frame format: any chunking decodes to the same messages; foreign bytes are caught."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ralph_tui.sandbox.child.framing import (
    MAGIC,
    ChannelCorrupted,
    FrameDecoder,
    decode_json,
    encode_frame,
    encode_json,
    frame_header,
)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)

MESSAGES = st.lists(
    st.dictionaries(st.text(max_size=5), st.text(max_size=50) | st.integers(), max_size=4),
    min_size=1,
    max_size=5,
)


@given(MESSAGES, st.lists(st.integers(min_value=1, max_value=40), min_size=1))
def test_any_chunking_decodes_the_same_messages(
    messages: list[dict[str, object]], cuts: list[int]
) -> None:
    stream = b"".join(encode_frame(message) for message in messages)
    decoder = FrameDecoder()
    decoded: list[dict[str, object]] = []
    offset, turn = 0, 0
    while offset < len(stream):
        size = cuts[turn % len(cuts)]
        decoded += decoder.feed(stream[offset : offset + size])
        offset += size
        turn += 1
    assert decoded == messages


def test_newlines_and_large_payloads_travel_unchanged() -> None:
    text = "line\n\r\n" * 2000 + "\x03\x04" + "é" * 5000
    frames = FrameDecoder().feed(encode_frame({"text": text}))
    assert frames == [{"text": text}]


def test_lone_surrogates_survive() -> None:
    assert FrameDecoder().feed(encode_frame({"s": "a\udc80b"})) == [{"s": "a\udc80b"}]


def test_garbage_is_detected_before_a_whole_header_arrives() -> None:
    with pytest.raises(ChannelCorrupted) as caught:
        FrameDecoder().feed(b"garb")
    assert caught.value.preview == b"garb"


def test_garbage_after_a_frame_is_detected() -> None:
    decoder = FrameDecoder()
    with pytest.raises(ChannelCorrupted):
        decoder.feed(encode_frame({"op": "done"}) + b"garbage")


def test_a_header_is_the_magic_then_the_payload_length_big_endian() -> None:
    assert frame_header(0x01020304) == MAGIC + bytes([1, 2, 3, 4])
    assert encode_frame({}) == MAGIC + bytes([0, 0, 0, 2]) + b"{}"


def test_absurd_length_is_detected() -> None:
    with pytest.raises(ChannelCorrupted, match="length"):
        FrameDecoder().feed(frame_header(0xFFFFFFFF))


def test_non_object_payload_is_detected() -> None:
    payload = b"[1, 2]"
    with pytest.raises(ChannelCorrupted, match="JSON object"):
        FrameDecoder().feed(frame_header(len(payload)) + payload)


def test_non_json_values_are_refused_when_encoding() -> None:
    with pytest.raises(TypeError):
        encode_frame({"value": {1, 2}})
    with pytest.raises(ValueError):
        encode_frame({"value": float("nan")})


@given(JSON_VALUES)
def test_the_codec_writes_and_reads_what_the_json_package_does(value: object) -> None:
    text = encode_json(value)
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    assert decode_json(text) == json.loads(text)


def test_the_codec_refuses_what_json_refuses_and_says_why() -> None:
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encode_json({"value": {1, 2}})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        encode_json(loop)
    for text in ("", '{"a":1} ', '{"a":NaN}', "[1,", "nul"):
        with pytest.raises(ValueError):
            decode_json(text)


@pytest.mark.parametrize("payload", [b'{"a":1}{"b":2}', b'{"a":' + b"[" * 100_000, b"\xff"])
def test_a_payload_that_is_not_one_json_object_is_detected(payload: bytes) -> None:
    with pytest.raises(ChannelCorrupted, match="not JSON"):
        FrameDecoder().feed(frame_header(len(payload)) + payload)
