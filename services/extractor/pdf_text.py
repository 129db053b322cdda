"""PDF text layer extraction with pypdf; scanned or broken PDFs fail with a clear reason."""

import io
import logging

from pypdf import PdfReader

from services.extractor.errors import ExtractionError

# pypdf logs every recoverable glitch of a malformed file; the user gets our reason instead
logging.getLogger("pypdf").setLevel(logging.ERROR)


def pdf_to_text(data: bytes) -> str:
    """Text of every page in order, pages separated by a blank line."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError(
                "the PDF is password-protected; remove the password and upload again"
            )
        pages = [page.extract_text() or "" for page in reader.pages]
    except ExtractionError:
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
