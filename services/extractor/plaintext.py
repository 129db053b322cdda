"""Bytes to text for plain-text formats: UTF-8 (BOM optional) or UTF-16/32 with a BOM."""

import codecs

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


def decode_text(data: bytes, declared_encoding: str | None = None) -> str:
    """Decode bytes as text, rejecting binary data and undecodable bytes with a clear reason."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_strictly(data[len(bom) :], encoding)
    if _looks_like_utf16_without_bom(data[:_BINARY_SAMPLE]):
        raise ExtractionError(
            "the file looks like UTF-16 text without a byte-order mark; "
            "save it as UTF-8 and upload again"
        )
    if b"\x00" in data[:_BINARY_SAMPLE] or _looks_binary(data[:_BINARY_SAMPLE]):
        raise ExtractionError(
            "the file looks like binary data, not text; upload a text document "
            "(UTF-8 .txt, .md, .rst, .log, .vtt, .html) or a .pdf / .docx"
        )
    encoding = _usable_encoding(declared_encoding) or "utf-8"
    text = _decode_strictly(data, encoding)
    if "\x00" in text or _control_ratio(text) > _MAX_CONTROL_RATIO:
        raise ExtractionError("the file looks like binary data, not text")
    return text


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


def _looks_like_utf16_without_bom(sample: bytes) -> bool:
    """ASCII text in UTF-16 has a NUL in every other byte, all at even or all at odd offsets."""
    if len(sample) < 8:
        return False
    even, odd = sample[0::2], sample[1::2]
    return even.count(0) == len(even) or odd.count(0) == len(odd)


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
