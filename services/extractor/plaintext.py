"""Bytes to text for plain-text formats: UTF-8, UTF-16/32 (with a BOM, or UTF-16 told by its NUL
bytes), a declared charset, or — for the Latin-1, Windows-1252 and other legacy files real folders
hold — the encoding charset-normalizer detects. Binary data is refused."""

import codecs

from charset_normalizer import from_bytes

from services.extractor.errors import ExtractionError

# BOMs checked longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_BINARY_SAMPLE = 8192
# text legitimately holds tabs, newlines, form feeds and escape codes (coloured logs), little else
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x1b")
_MAX_CONTROL_RATIO = 0.05
# charset-normalizer reads this much: its cost stays bounded on a 10 MB file, and the whole file
# is then decoded strictly with what it found
_DETECTION_SAMPLE = 256 * 1024


def decode_text(data: bytes, declared_encoding: str | None = None) -> str:
    """Decode bytes as text, rejecting binary data and undecodable bytes with a clear reason."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_strictly(data[len(bom) :], encoding)
    if utf16 := _utf16_without_bom(data[:_BINARY_SAMPLE]):
        return _checked(_decode_strictly(data, utf16))
    if b"\x00" in data[:_BINARY_SAMPLE] or _looks_binary(data[:_BINARY_SAMPLE]):
        raise ExtractionError(
            "the file looks like binary data, not text; upload a text document "
            "(.txt, .md, .csv, .rst, .log, .vtt, .html) or a .pdf, .docx, .xlsx or .pptx"
        )
    if declared := _usable_encoding(declared_encoding):
        return _checked(_decode_strictly(data, declared))
    try:
        return _checked(data.decode("utf-8"))
    except UnicodeDecodeError:
        detected = _detected_encoding(data)
        if detected is None:
            return _decode_strictly(data, "utf-8")  # raises, naming the first bad byte
        return _checked(_decode_strictly(data, detected))


def _checked(text: str) -> str:
    if "\x00" in text or _control_ratio(text) > _MAX_CONTROL_RATIO:
        raise ExtractionError("the file looks like binary data, not text")
    return text


def _detected_encoding(data: bytes) -> str | None:
    """The legacy encoding of text that is not UTF-8, by charset-normalizer: Windows-1252 (what
    "Latin-1" files mostly are) whenever it reads the bytes as well as the best guess, or the guess
    names no language — short Western texts fit many single-byte encodings equally well."""
    matches = from_bytes(data[:_DETECTION_SAMPLE])
    best = matches.best()
    if best is None:
        return None
    for match in matches:
        if (
            "cp1252" in match.could_be_from_charset
            and match.chaos <= best.chaos
            and (match.coherence >= best.coherence or best.coherence == 0)
        ):
            return "cp1252"
    return best.encoding


def _decode_strictly(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1].hex()
        name = "UTF-8" if encoding == "utf-8" else encoding.upper()
        raise ExtractionError(
            f"the file is not {name} text (invalid byte 0x{bad} at offset {error.start}); "
            "save it as UTF-8 and upload again"
        ) from None


def _usable_encoding(declared: str | None) -> str | None:
    if not declared:
        return None
    try:
        return codecs.lookup(declared).name
    except LookupError:
        return None  # an unknown charset label: fall back to UTF-8 rather than fail


def _utf16_without_bom(sample: bytes) -> str | None:
    """ASCII-range text in UTF-16 has a NUL in every other byte: at odd offsets little-endian,
    at even ones big-endian."""
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) == len(odd) and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) == len(even) and odd.count(0) == 0:
        return "utf-16-be"
    return None


def _looks_binary(sample: bytes) -> bool:
    """Many C0 control bytes mean a binary format even when no NUL shows up."""
    if not sample:
        return False
    controls = sum(1 for byte in sample if byte < 32 and chr(byte) not in _ALLOWED_CONTROLS)
    return controls / len(sample) > _MAX_CONTROL_RATIO


def _control_ratio(text: str) -> float:
    sample = text[:_BINARY_SAMPLE]
    if not sample:
        return 0.0
    controls = sum(1 for char in sample if char < " " and char not in _ALLOWED_CONTROLS)
    return controls / len(sample)
