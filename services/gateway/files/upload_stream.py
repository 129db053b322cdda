"""Read a multipart upload as it streams in, enforcing every limit before anything is stored.

Each file is hashed while it arrives and spooled (in memory up to a small size, then to a temporary
file), so neither memory nor disk grows past the limits, however large the body a client sends.
"""

import hashlib
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from tempfile import SpooledTemporaryFile
from typing import IO

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from services.gateway.files import uploads
from services.gateway.files.uploads import UploadRejected

SPOOL_IN_MEMORY_BYTES = 512 * 1024
# multipart headers and boundaries per file, on top of its data
_PART_OVERHEAD_BYTES = 64 * 1024
# after a rejection, read (and discard) up to this much more so the client sees our answer
# instead of a connection reset; beyond it we stop reading and let the connection close
_DRAIN_LIMIT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    max_file_bytes: int
    max_files: int
    supported_extensions: Collection[str]

    @property
    def max_body_bytes(self) -> int:
        return self.max_files * (self.max_file_bytes + _PART_OVERHEAD_BYTES)


@dataclass
class ReceivedFile:
    """One validated file of an upload, not yet stored."""

    filename: str
    content_hash: str
    size: int
    spool: IO[bytes]

    def read(self) -> bytes:
        self.spool.seek(0)
        return self.spool.read()

    def close(self) -> None:
        self.spool.close()


def _new_spool() -> IO[bytes]:
    # closed by ReceivedFile.close() or _Collector.close(): it outlives the parsing, so no `with`
    return SpooledTemporaryFile(SPOOL_IN_MEMORY_BYTES)


@dataclass
class _Part:
    filename: str
    blank: bool  # a browser's empty <input type=file> sends filename="" and no data
    spool: IO[bytes] = field(default_factory=_new_spool)
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)
    size: int = 0


class _Collector:
    """python-multipart callbacks: validate each part as its headers and bytes arrive."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.files: list[ReceivedFile] = []
        self.finished = False
        self._headers: dict[bytes, bytes] = {}
        self._header_name = b""
        self._header_value = b""
        self._part: _Part | None = None

    def callbacks(self) -> dict:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
            "on_end": self.on_end,
        }

    def on_part_begin(self) -> None:
        self._headers, self._part = {}, None

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[self._header_name.strip().lower()] = self._header_value
        self._header_name = self._header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition"))
        if b"filename" not in options:
            return  # a plain form field: not ours, ignored
        name = options.get(b"name", b"").decode("utf-8", "replace")
        if name not in uploads.FIELD_NAMES:
            raise uploads.unexpected_field(name)
        if len(self.files) >= self.limits.max_files:
            raise uploads.too_many_files(self.limits.max_files)
        raw_filename = options[b"filename"].decode("utf-8", "replace")
        filename = uploads.sanitize_filename(raw_filename)
        self._part = _Part(filename=filename, blank=not raw_filename)
        if not self._part.blank:
            uploads.check_extension(filename, self.limits.supported_extensions)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        part = self._part
        if part is None:
            return
        part.size += end - start
        if part.size > self.limits.max_file_bytes:
            raise uploads.too_large(part.filename, self.limits.max_file_bytes)
        if part.blank:  # data under an empty filename: judge it like any other file
            uploads.check_extension(part.filename, self.limits.supported_extensions)
            part.blank = False
        chunk = data[start:end]
        part.digest.update(chunk)
        part.spool.write(chunk)

    def on_part_end(self) -> None:
        part, self._part = self._part, None
        if part is None:
            return
        if part.size == 0:
            part.spool.close()
            if part.blank:
                return
            raise uploads.empty_file(part.filename)
        self.files.append(
            ReceivedFile(part.filename, part.digest.hexdigest(), part.size, part.spool)
        )

    def on_end(self) -> None:
        self.finished = True

    def close(self) -> None:
        for received in self.files:
            received.close()
        if self._part is not None:
            self._part.spool.close()


async def receive_files(request: Request, limits: UploadLimits) -> list[ReceivedFile]:
    """The validated files of a multipart request, or UploadRejected with nothing kept."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_body_bytes:
        # hopeless from the first byte: answer at once rather than read it all
        raise uploads.request_too_large(limits.max_body_bytes)
    collector = _Collector(limits)
    stream = request.stream()
    try:
        parser = MultipartParser(_boundary(request), collector.callbacks())
        await _feed(stream, parser)
        if not collector.finished:
            raise uploads.malformed_body("it ended before the closing boundary")
        if not collector.files:
            raise uploads.no_files()
        return collector.files
    except UploadRejected:
        collector.close()
        await _drain(stream)
        raise


async def _feed(stream: AsyncIterator[bytes], parser: MultipartParser) -> None:
    try:
        async for chunk in stream:
            if chunk:
                parser.write(chunk)
        parser.finalize()
    except FormParserError as exc:
        raise uploads.malformed_body(str(exc) or type(exc).__name__) from exc


def _boundary(request: Request) -> bytes:
    content_type, params = parse_options_header(request.headers.get("content-type"))
    if content_type != b"multipart/form-data":
        raise uploads.no_files()  # an empty POST, a JSON body, a url-encoded form: no files
    boundary = params.get(b"boundary")
    if not boundary:
        raise uploads.malformed_body("the Content-Type header has no boundary")
    return boundary


async def _drain(stream: AsyncIterator[bytes]) -> None:
    drained = 0
    async for chunk in stream:
        drained += len(chunk)
        if drained > _DRAIN_LIMIT_BYTES:
            break
