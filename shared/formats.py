"""The file formats Artisan accepts: extensions and the media types recorded for them."""

from pathlib import PurePath

_MEDIA_TYPES: dict[str, str] = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".rst": "text/x-rst",
    ".log": "text/plain",
    ".vtt": "text/vtt",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".csv": "text/csv",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_MEDIA_TYPES)
UNKNOWN_MEDIA_TYPE = "application/octet-stream"


def extension_of(filename: str) -> str:
    """Lower-case extension of a filename, with its dot ('' when there is none)."""
    return PurePath(filename).suffix.lower()


def supported_formats() -> dict[str, str]:
    """Every supported extension with its media type."""
    return dict(_MEDIA_TYPES)


def media_type_for(filename: str) -> str:
    """The media type Artisan records for a filename, by extension."""
    return _MEDIA_TYPES.get(extension_of(filename), UNKNOWN_MEDIA_TYPE)
