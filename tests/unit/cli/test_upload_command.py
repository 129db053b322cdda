"""`artisan upload` against an in-memory stand-in for the gateway."""

import asyncio
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import pytest

from shared.cli import upload
from shared.cli.progress_view import LineView
from shared.cli.tracker import FileState
from tests.unit.cli.fakes import fake_http, record


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
        following = upload.upload_and_follow(
            http, states, view, poll_seconds, match=upload.match_by_name
        )
        await asyncio.wait_for(following, 5)
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
    # your files are listed (a known name is updated in place), then the events are opened
    # before any upload
    assert gateway.requests[:2] == ["GET /v1/files", "GET /v1/events"]
    assert gateway.requests.count("POST /v1/files") == 4  # one request per file
    assert "big.md" in output and "rejected: the file is larger than the 10 MB limit" in output
    assert "already uploaded" in output
    assert "Compressing chunks 1/2" in output


async def test_lost_events_are_caught_up_by_reading_the_records(tmp_path: Path) -> None:
    gateway = FakeGateway(stream_events=False)
    states, _ = await follow(gateway, make_files(tmp_path, "good.md"), poll_seconds=0.05)
    assert states[0].status == "ready"


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
