"""Which files Artisan reads, their media types, and bytes → normalised UTF-8 text."""

from collections.abc import Callable

from services.extractor.csv_text import csv_to_text
from services.extractor.docx_text import docx_to_text
from services.extractor.errors import ExtractionError, too_much_text
from services.extractor.html_text import declared_charset, html_to_text
from services.extractor.pdf_text import pdf_to_text
from services.extractor.plaintext import decode_text
from services.extractor.pptx_text import pptx_to_text
from services.extractor.vtt import vtt_to_text
from services.extractor.xlsx_text import xlsx_to_text
from shared.config import ExtractionSettings, extraction_settings
from shared.formats import SUPPORTED_EXTENSIONS, extension_of
from shared.text.plain import normalise_text


def extract_text(data: bytes, filename: str, limits: ExtractionSettings | None = None) -> str:
    """UTF-8 text of a supported file, normalised; ExtractionError says why it can't be read.
    Runs in the caller's process: the extractor calls it through child.extract_in_child."""
    limits = limits or extraction_settings()
    extension = extension_of(filename)
    reader = _READERS.get(extension)
    if reader is None:
        shown = f"'{extension}'" if extension else "without an extension"
        raise ExtractionError(
            f"unsupported file type {shown}; upload one of: {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    if not data:
        raise ExtractionError("the file is empty; no text found to remember")
    text = normalise_text(reader(data, limits))
    if not text.strip():
        raise ExtractionError("no text found in the file after extraction; nothing to remember")
    _check_length(text, limits.extract_max_text_chars)
    return text


def _check_length(text: str, max_chars: int) -> None:
    if len(text) > max_chars:
        raise too_much_text(len(text), max_chars)


def _read_plain(data: bytes, _limits: ExtractionSettings) -> str:
    return decode_text(data)


def _read_vtt(data: bytes, _limits: ExtractionSettings) -> str:
    return vtt_to_text(normalise_text(decode_text(data)))


def _read_html(data: bytes, _limits: ExtractionSettings) -> str:
    return html_to_text(decode_text(data, declared_charset(data)))


def _read_pdf(data: bytes, limits: ExtractionSettings) -> str:
    return pdf_to_text(data, max_pages=limits.extract_max_pdf_pages)


def _read_docx(data: bytes, _limits: ExtractionSettings) -> str:
    return docx_to_text(data)


# a table's text repeats its column names on every row: counted while it is read
def _read_csv(data: bytes, limits: ExtractionSettings) -> str:
    return csv_to_text(data, max_chars=limits.extract_max_text_chars)


def _read_xlsx(data: bytes, limits: ExtractionSettings) -> str:
    return xlsx_to_text(data, max_chars=limits.extract_max_text_chars)


def _read_pptx(data: bytes, limits: ExtractionSettings) -> str:
    return pptx_to_text(data, max_chars=limits.extract_max_text_chars)


# every reader takes the limits, though not every one has a limit of its own
_READERS: dict[str, Callable[[bytes, ExtractionSettings], str]] = {
    ".txt": _read_plain,
    ".md": _read_plain,
    ".rst": _read_plain,
    ".log": _read_plain,
    ".vtt": _read_vtt,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_pdf,
    ".docx": _read_docx,
    ".csv": _read_csv,
    ".xlsx": _read_xlsx,
    ".pptx": _read_pptx,
}
