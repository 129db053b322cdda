"""Reading multipart uploads as they stream: limits are enforced before anything is kept."""

import hashlib
from collections.abc import Sequence

import httpx
import pytest
from starlette.requests import Request
from starlette.types import Message

from services.gateway.files.upload_stream import UploadLimits, receive_files
from services.gateway.files.uploads import UploadRejected

LIMITS = UploadLimits(max_file_bytes=1000, max_files=3, supported_extensions={".md", ".txt"})
PIECE = 100  # the body arrives in small pieces, like a real socket


def multipart(files: Sequence[tuple[str, tuple[str, bytes]]], data: dict | None = None) -> Request:
    """A Starlette request whose body is the multipart encoding httpx would send."""
    encoded = httpx.Request("POST", "http://test/v1/files", files=files, data=data)
    return request_with(dict(encoded.headers), encoded.read())


def request_with(headers: dict[str, str], body: bytes) -> Request:
    pieces = [body[i : i + PIECE] for i in range(0, len(body), PIECE)] or [b""]
    sent: list[int] = []

    async def receive() -> Message:
        index = len(sent)
        sent.append(index)
        if index >= len(pieces):
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": pieces[index], "more_body": index < len(pieces) - 1}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/files",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    request = Request(scope, receive)
    request.state.pieces_sent = sent
    return request


async def rejected(request: Request) -> UploadRejected:
    with pytest.raises(UploadRejected) as caught:
        await receive_files(request, LIMITS)
    return caught.value


async def test_several_files_are_received_with_their_hashes() -> None:
    request = multipart([("files", ("a.md", b"# A\n")), ("files", ("b.txt", b"bee"))])
    received = await receive_files(request, LIMITS)
    assert [(f.filename, f.size, f.read()) for f in received] == [
        ("a.md", 4, b"# A\n"),
        ("b.txt", 3, b"bee"),
    ]
    assert received[0].content_hash == hashlib.sha256(b"# A\n").hexdigest()


async def test_the_singular_field_name_is_accepted_and_plain_fields_ignored() -> None:
    request = multipart([("file", ("one.md", b"x"))], data={"note": "hello"})
    [received] = await receive_files(request, LIMITS)
    assert received.filename == "one.md"


async def test_a_file_at_the_limit_is_accepted_and_one_byte_more_is_413() -> None:
    [ok] = await receive_files(multipart([("files", ("ok.txt", b"x" * 1000))]), LIMITS)
    assert ok.size == 1000
    error = await rejected(multipart([("files", ("big.txt", b"x" * 1001))]))
    assert error.status_code == 413 and "big.txt" in error.detail


async def test_an_oversized_body_is_drained_not_kept() -> None:
    request = multipart([("files", ("big.txt", b"x" * 5000)), ("files", ("after.md", b"y"))])
    error = await rejected(request)
    assert error.status_code == 413
    # the rest of the body was read (and dropped) so the client receives the answer
    assert len(request.state.pieces_sent) > 5000 // PIECE


async def test_a_declared_length_beyond_every_limit_is_refused_before_reading() -> None:
    request = request_with(
        {"content-type": "multipart/form-data; boundary=x", "content-length": str(10**9)}, b""
    )
    error = await rejected(request)
    assert error.status_code == 413
    assert request.state.pieces_sent == []


async def test_unsupported_type_is_415_even_when_another_file_is_fine() -> None:
    request = multipart([("files", ("ok.md", b"fine")), ("files", ("evil.exe", b"MZ"))])
    error = await rejected(request)
    assert error.status_code == 415 and "evil.exe" in error.detail


async def test_an_empty_file_is_422() -> None:
    error = await rejected(multipart([("files", ("ok.md", b"fine")), ("files", ("e.md", b""))]))
    assert error.status_code == 422 and "e.md" in error.detail


async def test_too_many_files_is_refused() -> None:
    files = [("files", (f"{i}.md", b"x")) for i in range(4)]
    error = await rejected(multipart(files))
    assert error.status_code == 413 and "at most 3" in error.detail


async def test_no_files_is_422() -> None:
    error = await rejected(multipart([], data={"note": "no files here"}))
    assert error.status_code == 422 and "No files" in error.detail


async def test_a_browsers_empty_file_input_is_skipped() -> None:
    request = multipart([("files", ("", b"")), ("files", ("real.md", b"content"))])
    [received] = await receive_files(request, LIMITS)
    assert received.filename == "real.md"


async def test_an_unexpected_file_field_is_422() -> None:
    error = await rejected(multipart([("document", ("a.md", b"x"))]))
    assert error.status_code == 422 and "document" in error.detail


async def test_hostile_names_are_neutralised_before_the_type_check() -> None:
    body = (
        b"--B\r\n"
        b'Content-Disposition: form-data; name="files"; filename="../../x\x01y\x1b.md"\r\n'
        b"Content-Type: text/plain\r\n\r\n"
        b"z\r\n"
        b"--B--\r\n"
    )
    request = request_with({"content-type": "multipart/form-data; boundary=B"}, body)
    [received] = await receive_files(request, LIMITS)
    assert received.filename == "xy.md"


@pytest.mark.parametrize(
    "content_type", ["application/json", "", "application/x-www-form-urlencoded"]
)
async def test_a_request_that_is_not_multipart_has_no_files(content_type: str) -> None:
    error = await rejected(request_with({"content-type": content_type}, b"{}"))
    assert error.status_code == 422 and "multipart/form-data" in error.detail


async def test_a_truncated_body_is_422() -> None:
    encoded = httpx.Request("POST", "http://t/", files=[("files", ("a.md", b"hello"))])
    body = encoded.read()
    error = await rejected(request_with(dict(encoded.headers), body[: len(body) - 30]))
    assert error.status_code == 422


async def test_a_missing_boundary_is_422() -> None:
    error = await rejected(request_with({"content-type": "multipart/form-data"}, b"junk"))
    assert error.status_code == 422 and "boundary" in error.detail


async def test_utf8_filenames_survive() -> None:
    [received] = await receive_files(multipart([("files", ("Überblick 日本.md", b"z"))]), LIMITS)
    assert received.filename == "Überblick 日本.md"
