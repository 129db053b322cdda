"""Which files Artisan reads, their media types, and bytes → normalised UTF-8 text."""

import re
from collections.abc import Callable

from services.extractor.docx_text import docx_to_text
from services.extractor.errors import ExtractionError
from services.extractor.html_text import declared_charset, html_to_text
from services.extractor.pdf_text import pdf_to_text
from services.extractor.plaintext import decode_text
from services.extractor.vtt import vtt_to_text
from shared.formats import SUPPORTED_EXTENSIONS, extension_of

# C0 controls other than tab and newline carry no meaning in stored text
_STRAY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_EXCESS_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n){3,}")


def extract_text(data: bytes, filename: str) -> str:
    """UTF-8 text of a supported file, normalised; ExtractionError says why it can't be read."""
    extension = extension_of(filename)
    reader = _READERS.get(extension)
    if reader is None:
        shown = f"'{extension}'" if extension else "without an extension"
        raise ExtractionError(
            f"unsupported file type {shown}; upload one of: {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    if not data:
        raise ExtractionError("the file is empty; no text found to remember")
    text = normalise_text(reader(data))
    if not text.strip():
        raise ExtractionError("no text found in the file after extraction; nothing to remember")
    return text


def normalise_text(text: str) -> str:
    """'\\n' line endings, no control characters, at most two blank lines in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    text = _STRAY_CONTROLS.sub("", text.lstrip("\ufeff"))
    text = _EXCESS_BLANK_LINES.sub("\n\n\n", text)
    return text.strip("\n").rstrip() + "\n"


def _read_plain(data: bytes) -> str:
    return decode_text(data)


def _read_vtt(data: bytes) -> str:
    return vtt_to_text(normalise_text(decode_text(data)))


def _read_html(data: bytes) -> str:
    return html_to_text(decode_text(data, declared_charset(data)))


_READERS: dict[str, Callable[[bytes], str]] = {
    ".txt": _read_plain,
    ".md": _read_plain,
    ".rst": _read_plain,
    ".log": _read_plain,
    ".vtt": _read_vtt,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": pdf_to_text,
    ".docx": docx_to_text,
}
