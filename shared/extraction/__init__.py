"""Bytes of an uploaded file → normalised UTF-8 text, or a user-facing reason it can't be read."""

from shared.extraction.errors import ExtractionError
from shared.extraction.formats import (
    SUPPORTED_EXTENSIONS,
    extract_text,
    media_type_for,
    normalise_text,
)

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "ExtractionError",
    "extract_text",
    "media_type_for",
    "normalise_text",
]
