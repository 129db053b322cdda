"""`artisan upload`, `artisan files`, `artisan rm` against an in-memory stand-in for the gateway."""

import asyncio
import functools
import io
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import pytest

from shared.cli import client, upload
from shared.cli.progress_view import LineView
from shared.cli.tracker import FileState
from shared.config import gateway_settings, infra_settings
from shared.launcher.embedded import free_port


@pytest.fixture(autouse=True)
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No key, no URL, an empty data directory; settings re-read from this environment."""
    for name in ("ARTISAN_API_KEY", "ARTISAN_URL", "ARTISAN_HOST", "ARTISAN_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARTISAN_DATA_DIR", str(tmp_path / "data"))
    infra_settings.cache_clear()
    gateway_settings.cache_clear()
    yield
    infra_settings.cache_clear()
    gateway_settings.cache_clear()


def record(file_id: str, name: str, **overrides: Any) -> dict[str, Any]:
    return {
        "id": file_id,
        "filename": name,
        "media_type": "text/markdown",
        "size": 4,
        "file_type": None,
        "status": "processing",
        "processing_stage": "uploaded",
        "progress": 10,
        "total_chunks": 0,
        "processed_chunks": 0,
        "error_message": None,
        "duplicate": False,
        **overrides,
    }


class FakeGateway:
    """The files API and SSE stream, in memory; a file's name decides what happens to it."""

    def __init__(self, *, stream_events: bool = True) -> None:
        self.stream_events = stream_events
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.requests: list[str] = []
        self.records: dict[str, dict[str, Any]] = {}
        self._next_event_id = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        if request.url.path == "/v1/events":
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, headers=headers, content=self._stream())
        if request.method == "POST":
            match = re.search(rb'filename="([^"]+)"', await request.aread())
            assert match, "multipart upload with a filename"
            return await self._upload(match.group(1).decode())
        return httpx.Response(200, json={"items": list(self.records.values())})

    async def _stream(self) -> AsyncIterator[bytes]:
        yield b": connected\n\n"
        while True:
            yield await self.queue.get()

    async def _upload(self, name: str) -> httpx.Response:
        if name.startswith("big"):
            return httpx.Response(413, json={"detail": "the file is larger than the 10 MB limit"})
        file_id = str(uuid4())
        if name.startswith("dup"):
            done = record(file_id, name, status="ready", processing_stage="ready", progress=100)
            return httpx.Response(202, json={"items": [{**done, "duplicate": True}]})
        self.records[file_id] = record(file_id, name)
        # emitted before the response: the client must keep it until it learns the id
        self._emit(file_id, "processing", "extracting", 10, "Extracting text…")
        asyncio.get_running_loop().create_task(self._process(file_id, name))
        return httpx.Response(202, json={"items": [record(file_id, name)]})

    async def _process(self, file_id: str, name: str) -> None:
        await asyncio.sleep(0.01)
        self._emit(file_id, "processing", "processing", 60, "Compressing chunks 1/2")
        if name.startswith("bad"):
            self._finish(file_id, "failed", 20, "Failed: binary data, not text")
        else:
            self._finish(file_id, "ready", 100, "Ready")

    def _finish(self, file_id: str, status: str, progress: int, message: str) -> None:
        self.records[file_id].update(status=status, processing_stage=status, progress=progress)
        self.records[file_id]["error_message"] = message.removeprefix("Failed: ")
        if self.stream_events:
            self._emit(file_id, status, status, progress, message)

    def _emit(
        self, file_id: str, status: str, stage: str, progress: int, message: str = ""
    ) -> None:
        if not self.stream_events:
            return
        payload = {"file_id": file_id, "status": status, "stage": stage, "progress": progress,
                   "processed_chunks": 0, "total_chunks": 0, "message": message}  # fmt: skip
        self._next_event_id += 1
        event = f"id: {self._next_event_id}\nevent: progress\ndata: {json.dumps(payload)}\n\n"
        self.queue.put_nowait(event.encode())


def make_files(root: Path, *names: str) -> list[Path]:
    for name in names:
        (root / name).write_text("text")
    return [root / name for name in names]


async def follow(
    gateway: FakeGateway, paths: list[Path], poll_seconds: float = 3.0
) -> tuple[list[FileState], str]:
    states = [FileState(path) for path in paths]
    out = io.StringIO()
    transport = httpx.MockTransport(gateway)
    async with httpx.AsyncClient(transport=transport, base_url="http://artisan") as http:
        view = LineView(states, out)
        await asyncio.wait_for(upload.upload_and_follow(http, states, view, poll_seconds), 5)
    return states, out.getvalue()


async def test_each_file_ends_ready_failed_or_rejected(tmp_path: Path) -> None:
    gateway = FakeGateway()
    paths = make_files(tmp_path, "good.md", "big.md", "dup.md", "bad.md")
    states, output = await follow(gateway, paths)
    assert {s.path.name: s.status for s in states} == {
        "good.md": "ready",
        "big.md": "rejected",
        "dup.md": "ready",
        "bad.md": "failed",
    }
    assert gateway.requests[0] == "GET /v1/events"  # opened before any upload
    assert gateway.requests.count("POST /v1/files") == 4  # one request per file
    assert "big.md" in output and "rejected: the file is larger than the 10 MB limit" in output
    assert "already uploaded" in output
    assert "Compressing chunks 1/2" in output


async def test_lost_events_are_caught_up_by_reading_the_records(tmp_path: Path) -> None:
    gateway = FakeGateway(stream_events=False)
    states, _ = await follow(gateway, make_files(tmp_path, "good.md"), poll_seconds=0.05)
    assert states[0].status == "ready"


def fake_http(monkeypatch: pytest.MonkeyPatch, gateway: Any) -> None:
    """Route the command's own httpx clients to the fake gateway."""
    transport = httpx.MockTransport(gateway)
    monkeypatch.setattr(httpx, "Client", functools.partial(httpx.Client, transport=transport))
    monkeypatch.setattr(
        httpx, "AsyncClient", functools.partial(httpx.AsyncClient, transport=transport)
    )


def test_upload_prints_a_summary_and_fails_when_any_file_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, FakeGateway())
    make_files(tmp_path, "good.md", "bad.md", "photo.png")
    assert upload.upload([tmp_path]) == 1
    output = capsys.readouterr().out
    assert "1 ready, 1 failed" in output
    assert "bad.md — Failed: binary data, not text" in output
    assert "skipped 1 file of unsupported types" in output and "photo.png" in output


def test_upload_succeeds_when_every_file_is_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, FakeGateway())
    assert upload.upload(make_files(tmp_path, "a.md", "b.md")) == 0
    assert "2 ready, 0 failed" in capsys.readouterr().out


def test_upload_with_nothing_to_send_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert upload.upload([tmp_path / "missing.md"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"not found: {tmp_path / 'missing.md'}",
        "nothing to upload",
    ]


def test_a_refused_stream_stops_before_anything_is_uploaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "wrong")
    requests: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        requests.append(request.method)
        return httpx.Response(401, json={"detail": "invalid API key"})

    fake_http(monkeypatch, refuse)
    assert upload.upload(make_files(tmp_path, "a.md")) == 1
    assert capsys.readouterr().err == "error: invalid API key\n"
    assert requests == ["GET"]


def test_files_lists_full_ids_in_a_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    file_id = str(uuid4())
    done = record(file_id, "notes.md", file_type="strategic", status="ready", progress=100,
                  processing_stage="ready", processed_chunks=12, total_chunks=12)  # fmt: skip
    fake_http(monkeypatch, lambda _: httpx.Response(200, json={"items": [done]}))
    assert client.list_files() == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["ID", "NAME", "TYPE", "STATUS", "PROGRESS", "CHUNKS"]
    assert row.split() == [file_id, "notes.md", "strategic", "ready", "100%", "12/12"]


def test_files_when_there_are_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, lambda _: httpx.Response(200, json={"items": []}))
    assert client.list_files() == 0
    assert capsys.readouterr().out == "no files yet — try `artisan upload PATH`\n"


def test_rm_names_what_it_deleted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    calls: list[str] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        calls.append(f"{request.method} {request.url.path}")
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json=record("f1", "notes.md"))

    fake_http(monkeypatch, gateway)
    assert client.remove("f1") == 0
    assert capsys.readouterr().out == "deleted notes.md\n"
    assert calls == ["GET /v1/files/f1", "DELETE /v1/files/f1"]


def test_rm_of_an_unknown_file_prints_the_api_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    fake_http(monkeypatch, lambda _: httpx.Response(404, json={"detail": "file not found"}))
    assert client.remove("nope") == 1
    assert capsys.readouterr().err == "error: file not found\n"


def test_an_unreachable_gateway_gets_a_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("ARTISAN_URL", url)
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    assert client.list_files() == 1
    assert capsys.readouterr().err == (
        f"error: cannot reach Artisan at {url} — is `artisan up` running?\n"
    )


def test_without_a_key_the_user_is_told_how_to_get_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert client.list_files() == 1
    error = capsys.readouterr().err
    assert error.startswith("error: no API key")
    assert "`artisan up`" in error and "`artisan users create NAME`" in error
    assert "ARTISAN_API_KEY" in error


def test_the_key_comes_from_the_environment_before_the_local_user_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key_file = infra_settings().data_dir / "local-user.key"
    key_file.parent.mkdir(parents=True)
    key_file.write_text("local-key\n")
    assert client.api_key() == "local-key"
    monkeypatch.setenv("ARTISAN_API_KEY", "env-key")
    assert client.api_key() == "env-key"


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"ARTISAN_HOST": "0.0.0.0", "ARTISAN_PORT": "9000"}, "http://127.0.0.1:9000"),
        ({"ARTISAN_HOST": "::1"}, "http://[::1]:8000"),
        (
            {"ARTISAN_URL": "https://artisan.example/", "ARTISAN_PORT": "1"},
            "https://artisan.example",
        ),
    ],
)
def test_gateway_url(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], url: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    gateway_settings.cache_clear()
    assert client.gateway_url() == url


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(413, json={"detail": "too large"}), "too large"),
        (httpx.Response(422, json={"detail": [{"msg": "field required"}]}), "field required"),
        (httpx.Response(502, text="<html>bad gateway</html>"), "HTTP 502 Bad Gateway"),
    ],
)
def test_api_error(response: httpx.Response, message: str) -> None:
    assert client.api_error(response) == message
