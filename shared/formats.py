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
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_MEDIA_TYPES)
UNKNOWN_MEDIA_TYPE = "application/octet-stream"


def extension_of(filename: str) -> str:
    """Lower-case extension of a filename, with its dot ('' when there is none)."""
    return PurePath(filename).suffix.lower()


def media_type_for(filename: str) -> str:
    """The media type Artisan records for a filename, by extension."""
    return _MEDIA_TYPES.get(extension_of(filename), UNKNOWN_MEDIA_TYPE)
