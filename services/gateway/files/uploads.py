"""Upload rules: which files are accepted, how names are neutralised, and what users are told."""

import unicodedata
from collections.abc import Collection
from pathlib import PurePosixPath

from services.gateway.errors import RequestRejected

MAX_FILENAME_LENGTH = 200
FALLBACK_FILENAME = "upload"
# an "extension" longer than this is part of the name, not a type (and is never supported anyway)
_MAX_EXTENSION_LENGTH = 16
FIELD_NAMES = ("files", "file")
CURL_HINT = "e.g. curl -H 'Authorization: Bearer KEY' -F files=@notes.md URL/v1/files"


class UploadRejected(RequestRejected):
    """The upload cannot be accepted; nothing from it has been stored (errors.py answers it)."""


def sanitize_filename(raw: str) -> str:
    """A name safe anywhere: no directories, `..` or control characters; never empty."""
    name = unicodedata.normalize("NFC", raw)
    # clients send full paths (old browsers, `curl -F files=@dir/x`); only the last part is the name
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    # category C* = control, format (e.g. right-to-left override), surrogate, private, unassigned
    name = "".join(ch for ch in name if not unicodedata.category(ch).startswith("C"))
    while ".." in name:
        name = name.replace("..", ".")
    name = name.strip(" .")
    if not name:
        return FALLBACK_FILENAME
    return _trim(name, MAX_FILENAME_LENGTH)


def _trim(name: str, limit: int) -> str:
    if len(name) <= limit:
        return name
    suffix = extension_of(name)
    if len(suffix) > _MAX_EXTENSION_LENGTH:
        suffix = ""
    return name[: limit - len(suffix)].rstrip(" .") + suffix


def extension_of(filename: str) -> str:
    return PurePosixPath(filename).suffix.lower()


def format_megabytes(num_bytes: int) -> str:
    return f"{num_bytes / (1024 * 1024):g} MB"


def check_extension(filename: str, supported: Collection[str]) -> None:
    suffix = extension_of(filename)
    if suffix in supported:
        return
    listed = ", ".join(sorted(supported))
    what = f"type '{suffix}'" if suffix else "file without an extension"
    raise UploadRejected(
        415,
        f"'{filename}': unsupported {what}. Supported: {listed}. "
        "Convert or rename the file to one of these and upload again.",
    )


def too_large(filename: str, limit_bytes: int) -> UploadRejected:
    return UploadRejected(
        413,
        f"'{filename}' is larger than the {format_megabytes(limit_bytes)} per-file limit; "
        "split it into smaller files (the limit is ARTISAN_MAX_UPLOAD_BYTES). Nothing was stored.",
    )


def request_too_large(limit_bytes: int) -> UploadRejected:
    return UploadRejected(
        413,
        f"The request body is larger than any allowed upload ({format_megabytes(limit_bytes)} in "
        "total); send fewer or smaller files per request. Nothing was stored.",
    )


def too_many_files(limit: int) -> UploadRejected:
    return UploadRejected(
        413,
        f"Too many files in one request: at most {limit} are accepted; "
        "send the rest in another request. Nothing was stored.",
    )


def empty_file(filename: str) -> UploadRejected:
    return UploadRejected(
        422, f"'{filename}' is empty: there is nothing to process. Nothing was stored."
    )


def no_files() -> UploadRejected:
    return UploadRejected(
        422,
        "No files in the request: send one or more files as multipart/form-data in the `files` "
        f"field, {CURL_HINT}.",
    )


def unexpected_field(name: str) -> UploadRejected:
    return UploadRejected(
        422, f"Unexpected file field '{name}': send files in the `files` field, {CURL_HINT}."
    )


def malformed_body(reason: str) -> UploadRejected:
    return UploadRejected(
        422, f"The multipart body could not be read ({reason}); send it again, {CURL_HINT}."
    )
