"""PDF text layer extraction with pypdf; scanned, broken or oversized PDFs fail with a reason."""

import io
import logging

from pypdf import PdfReader

from services.extractor.errors import ExtractionError, LimitExceeded

# pypdf logs every recoverable glitch of a malformed file; the user gets our reason instead
logging.getLogger("pypdf").setLevel(logging.ERROR)


def pdf_to_text(data: bytes, max_pages: int) -> str:
    """Text of every page in order, pages separated by a blank line."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError(
                "the PDF is password-protected; remove the password and upload again"
            )
        _check_page_count(len(reader.pages), max_pages)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (ExtractionError, MemoryError):  # a MemoryError is the memory limit, not damage
        raise
    except Exception as error:  # pypdf raises many kinds on damaged files; all mean the same
        raise ExtractionError(
            f"could not read the PDF: {error or type(error).__name__}; "
            "check that it opens in a PDF viewer, or export it again"
        ) from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise ExtractionError(
            "no extractable text in the PDF; it may be scanned images - "
            "run OCR on it (or export it with a text layer) and upload again"
        )
    return text


def _check_page_count(pages: int, max_pages: int) -> None:
    # counted from the page tree, before any page is read: the page count bounds the work of a
    # PDF better than its byte size, since pages can share one content stream
    if pages > max_pages:
        raise LimitExceeded(
            f"the PDF has {pages:,} pages, more than the {max_pages:,} one file may have "
            "(ARTISAN_EXTRACT_MAX_PDF_PAGES); split it into smaller PDFs and upload those"
        )
