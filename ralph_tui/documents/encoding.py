"""The encoding of a text file, from its byte-order mark (else UTF-8), and what a file that
is not readable text looks like, so a refusal can say what the file is and what to do."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32LE"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32BE"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16LE"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16BE"),
)
"""Byte-order marks with the codec that reads past them and the encoding's name. UTF-32LE's
mark begins with UTF-16LE's, so it is tried first."""

SIGNATURES = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office file (.doc, .xls or .ppt)",
     "ralph-tui reads Word files as .docx only: save it as .docx or PDF"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image", None),
    (b"\xff\xd8\xff", "a JPEG image", None),
    (b"GIF8", "a GIF image", None),
    (b"\x1f\x8b", "a gzip archive", "unpack it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "unpack it first"),
    (b"Rar!\x1a\x07", "a RAR archive", "unpack it first"),
    (b"\x7fELF", "a program (ELF executable)", None),
    (b"SQLite format 3\x00", "an SQLite database", None),
)  # fmt: skip
"""Kinds of file often passed as a document by mistake: signature, what it is, what to do
(``None``: nothing ralph-tui can read is in it)."""

BINARY_CONTROL_SHARE = 0.1
"""Past this share of control bytes (other than tab, newlines, form feed, escape) a file
without a byte-order mark is binary data, not text."""

_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b")


@dataclass(frozen=True)
class NotText:
    """What a file that is not readable text is (``what``, after the file's name) and what
    to do about it (``hint``; ``None``: the general list of what ralph-tui reads)."""

    what: str
    hint: str | None = None


def bom_encoding(data: bytes) -> tuple[str, str] | None:
    """The codec and name of the encoding ``data``'s byte-order mark declares, if any."""
    for mark, codec, name in BOMS:
        if data.startswith(mark):
            return codec, name
    return None


def not_text(head: bytes) -> NotText | None:
    """What ``head`` (a file's first bytes, without a byte-order mark) is when it is not
    UTF-8-compatible text: a known kind of file, UTF-16 or UTF-32 text saved without a
    byte-order mark, or binary data. ``None`` when it looks like text."""
    for signature, kind, hint in SIGNATURES:
        if head.startswith(signature):
            return NotText(f"is {kind}", hint)
    unmarked = _unmarked_wide_text(head)
    if unmarked is not None:
        return NotText(
            f"looks like {unmarked} text saved without a byte-order mark",
            f"save it as UTF-8, or as {unmarked} with a byte-order mark",
        )
    controls = _controls(head)
    if b"\x00" in head or controls > BINARY_CONTROL_SHARE * len(head):
        return NotText(
            f"is binary data, not text ({controls} control bytes in its first {len(head)})"
        )
    return None


class UndecodableText(ValueError):
    """Bytes that are not text in the encoding they declare (or UTF-8); ``found`` says what
    they look like and what to do."""

    def __init__(self, found: NotText) -> None:
        super().__init__(found.what)
        self.found = found


def decode_text(data: bytes) -> tuple[str, str]:
    """The text of ``data`` and the name of the encoding it was read in: the one its
    byte-order mark declares, else UTF-8. ``UndecodableText`` when it does not decode."""
    codec, name = bom_encoding(data) or ("utf-8", "UTF-8")
    try:
        return data.decode(codec), name
    except UnicodeDecodeError as exc:
        raise UndecodableText(_undecodable(data, exc, name, marked=codec != "utf-8")) from None


def _undecodable(data: bytes, exc: UnicodeDecodeError, name: str, *, marked: bool) -> NotText:
    where = f"byte {exc.start:,}"
    if marked:
        return NotText(
            f"starts with a {name} byte-order mark but is not valid {name} text ({where})",
            "the file is damaged or cut short: save it again as UTF-8",
        )
    before = " ".join(data[max(0, exc.start - 24) : exc.start].decode("utf-8", "replace").split())
    after = f", after {before[-12:]!r}" if before else ""
    family, example = _legacy_family(data)
    return NotText(
        f"is not UTF-8 text ({where}, 0x{data[exc.start]:02X}{after}, is invalid in UTF-8): "
        f"it looks like text in {family}",
        "convert it to UTF-8 from the encoding it was saved in, e.g. "
        f"`iconv -f {example} -t UTF-8 FILE > FILE.utf8.txt`",
    )


LEGACY_SAMPLE_BYTES = 65536
CJK_ENCODINGS = (
    ("SHIFT_JIS", "cp932"),
    ("GB18030", "gb18030"),
    ("BIG5", "big5"),
    ("EUC-KR", "euc_kr"),
)
"""Legacy multi-byte encodings (iconv's name, Python's codec) tried in turn: single-byte text
(Latin-1, Windows-1252) almost never decodes in any of them."""


def _legacy_family(data: bytes) -> tuple[str, str]:
    """What legacy encoding ``data`` (not UTF-8) is probably in, and an example of its name."""
    sample = data[:LEGACY_SAMPLE_BYTES]
    for name, codec in CJK_ENCODINGS:
        try:
            codecs.getincrementaldecoder(codec)().decode(sample, final=False)
        except UnicodeDecodeError:
            continue
        return f"a multi-byte legacy encoding (perhaps {name})", name
    return "a single-byte legacy encoding (such as Windows-1252, Latin-1 or Windows-1251)", (
        "WINDOWS-1252"
    )


def _unmarked_wide_text(head: bytes) -> str | None:
    """``UTF-16LE`` (and so on) when ``head`` has the pattern of zero bytes that mostly-ASCII
    text in that encoding has, and decodes in it; else ``None``."""
    candidates = (
        ("UTF-32LE", 4, (1, 2, 3), (0,)),
        ("UTF-32BE", 4, (0, 1, 2), (3,)),
        ("UTF-16LE", 2, (1,), (0,)),
        ("UTF-16BE", 2, (0,), (1,)),
    )
    for name, width, zero_lanes, text_lanes in candidates:
        body = head[: len(head) - len(head) % width]
        units = len(body) // width
        if units < 2:
            continue
        zeros = min(body[lane::width].count(0) for lane in zero_lanes)
        text_zeros = max(body[lane::width].count(0) for lane in text_lanes)
        if zeros >= 0.3 * units and text_zeros <= 0.02 * units and _reads_as_text(body, name):
            return name
    return None


def _reads_as_text(data: bytes, encoding: str) -> bool:
    """Whether ``data`` decodes in ``encoding`` to characters that are not mostly controls."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return _controls(text.encode("latin-1", "replace")) <= BINARY_CONTROL_SHARE * len(text)


def _controls(data: bytes) -> int:
    """How many of ``data``'s bytes are control bytes that text does not hold."""
    return sum(1 for byte in data if (byte < 0x20 and byte not in _TEXT_CONTROLS) or byte == 0x7F)
