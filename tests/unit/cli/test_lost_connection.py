"""A CLI that loses Artisan says so at once, retries with a backoff it shows, and after the bound
says what became of each file (issue 29, finding 13: `artisan upload` sat at "20% Analyzing
document…" for 69 minutes after the server was stopped, saying nothing)."""

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import cast

import httpx
import pytest

from shared.cli import link, sse, sync, upload
from shared.cli.client import Connection
from shared.cli.discovery import discover
from shared.cli.link import ConnectionLost, Link
from shared.cli.sync_index import SyncIndex
from shared.cli.tracker import Tracker
from tests.unit.cli.fakes import fake_http, record

URL = "http://artisan"


class DyingGateway:
    """The files API and an event stream that accept uploads, then go away: the stream ends and
    every request is refused, as when the gateway process is stopped; `revive` brings it back
    with the files ready."""

    def __init__(self, *, die_after_uploads: int, revive_after: float | None = None) -> None:
        self.die_after_uploads, self.revive_after = die_after_uploads, revive_after
        self.records: dict[str, dict] = {}
        self.down, self.gone = False, asyncio.Event()

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if request.url.path == "/v1/events":
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, headers=headers, content=self._stream())
        if request.method == "POST":
            if len(self.records) >= self.die_after_uploads:
                self._die()
                raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
            name = re.search(rb'filename="([^"]+)"', await request.aread()).group(1).decode()
            file_id = f"id-{len(self.records)}"
            self.records[file_id] = record(file_id, name, progress=20)
            if len(self.records) == self.die_after_uploads:
                asyncio.get_running_loop().call_later(0.05, self._die)
            return httpx.Response(202, json={"items": [self.records[file_id]]})
        return httpx.Response(200, json={"items": list(self.records.values())})

    async def _stream(self) -> AsyncIterator[bytes]:
        yield b": connected\n\n"
        await self.gone.wait()  # a stopped server's stream ends

    def _die(self) -> None:
        if not self.down:
            self.down = True
            self.gone.set()
            if self.revive_after is not None:
                asyncio.get_running_loop().call_later(self.revive_after, self._revive)

    def _revive(self) -> None:
        for file_id, done in self.records.items():
            self.records[file_id] = {**done, "status": "ready", "processing_stage": "ready",
                                     "progress": 100}  # fmt: skip
        self.down, self.gone = False, asyncio.Event()


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "FIRST_RETRY_SECONDS", 0.2)
    monkeypatch.setattr(upload, "POLL_SECONDS", 0.3)
    monkeypatch.setenv("ARTISAN_API_KEY", "key")
    monkeypatch.setenv("ARTISAN_URL", URL)


def within(seconds: float, command: Callable[[], int]) -> int:
    """The command's exit code, which must come within `seconds` (before the fix it never came:
    the upload waited for the lost server forever)."""
    code: list[int] = []
    worker = threading.Thread(target=lambda: code.append(command()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert code, f"the command was still waiting after {seconds} s"
    return code[0]


def make_files(root: Path, *names: str) -> list[Path]:
    for name in names:
        (root / name).write_text(f"text of {name}")
    return [root / name for name in names]


def test_a_server_that_stays_away_is_told_and_the_upload_says_what_was_received(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_RECONNECT_SECONDS", "1")
    fake_http(monkeypatch, DyingGateway(die_after_uploads=1))
    monkeypatch.setattr(upload, "UPLOAD_CONCURRENCY", 1)  # a.md is received, then b.md is not
    paths = make_files(tmp_path, "a.md", "b.md")
    assert within(20, lambda: upload.upload(paths)) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    lost = next(i for i, line in enumerate(lines) if "lost the connection" in line)
    assert lines[lost].startswith(f"lost the connection to Artisan at {URL} (")
    assert lines[lost].endswith("retrying in 0.2 s…")
    assert any("still no answer from Artisan" in line for line in lines[lost:]), out
    received = lines.index(next(line for line in lines if line.startswith("received by Artisan")))
    assert lines[received + 1] == f"  {tmp_path / 'a.md'}"
    assert "`artisan files` shows how they end" in lines[received]
    unsent = lines.index(next(line for line in lines if line.startswith("not received (1)")))
    assert "run the same command again once Artisan is back" in lines[unsent]
    assert lines[unsent + 1] == f"  {tmp_path / 'b.md'}"
    assert re.match(rf"error: Artisan at {URL} has not answered for \d+ s; stopped waiting", err)
    assert "ARTISAN_RECONNECT_SECONDS" in err


def test_a_server_back_within_the_bound_is_followed_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_RECONNECT_SECONDS", "30")
    fake_http(monkeypatch, DyingGateway(die_after_uploads=1, revive_after=0.6))
    paths = make_files(tmp_path, "a.md")
    assert within(20, lambda: upload.upload(paths)) == 0
    out = capsys.readouterr().out
    assert (
        out.index("lost the connection")
        < out.index("reconnected to Artisan at")
        < out.index("1 ready, 0 failed")
    )


async def test_the_bound_ends_the_retries_and_a_success_ends_the_outage() -> None:
    said: list[str] = []
    watch = Link(URL, said.append, give_up_after=0.5)
    refused = httpx.ConnectError("refused")
    await watch.retry_after(refused)
    assert watch.lost and said == [
        f"lost the connection to Artisan at {URL} (refused); retrying in 0.2 s…"
    ]
    watch.succeeded()
    assert not watch.lost and said[-1].startswith(f"reconnected to Artisan at {URL} after")
    watch.failed(refused)
    await asyncio.sleep(0.5)
    with pytest.raises(ConnectionLost, match=r"has not answered for 0\.\d s"):
        watch.failed(refused)


def test_the_bound_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARTISAN_RECONNECT_SECONDS", "7.5")
    assert link.reconnect_seconds() == 7.5
    monkeypatch.setenv("ARTISAN_RECONNECT_SECONDS", "soon")
    with pytest.raises(link.CliError, match="must be a number of seconds"):
        link.reconnect_seconds()


async def test_a_stream_that_falls_silent_is_opened_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A half-dead connection sends nothing, not even the pings every 15 s: the read timeout
    (three pings) ends it and the stream is opened again. A real socket: timeouts are the
    transport's."""
    monkeypatch.setattr(sse, "STREAM_TIMEOUT", httpx.Timeout(5.0, read=0.3))
    monkeypatch.setattr(sse, "RECONNECT_SECONDS", 0)
    opened = asyncio.Queue[None]()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n: hi\n\n")
        opened.put_nowait(None)
        await asyncio.sleep(60)  # then nothing, as from a server that hangs

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            stream = await sse.open_event_stream(http)
            tracker = cast(Tracker, None)
            follower = asyncio.create_task(
                sse.follow_events(http, stream, tracker, Link(URL, print))
            )
            await asyncio.wait_for(opened.get(), 5)
            await asyncio.wait_for(opened.get(), 5)  # opened again after the silence
            follower.cancel()
    finally:
        server.close()


def test_the_read_timeout_outlasts_the_gateways_pings_but_not_a_minute() -> None:
    from services.gateway.dispatch.streams import PING_SECONDS

    assert sse.PING_SECONDS == PING_SECONDS
    assert PING_SECONDS < (sse.STREAM_TIMEOUT.read or float("inf")) <= 60


async def test_sync_says_what_became_of_the_changes_and_remembers_the_received(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARTISAN_RECONNECT_SECONDS", "1")
    monkeypatch.setattr(upload, "UPLOAD_CONCURRENCY", 1)
    make_files(tmp_path, "a.md", "b.md")
    index = SyncIndex.load(Connection(URL, "key"), tmp_path)
    transport = httpx.MockTransport(DyingGateway(die_after_uploads=1))
    async with httpx.AsyncClient(transport=transport, base_url=URL) as http:
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(sync.send(http, discover([tmp_path], [".md"]), index), 20)
    out = capsys.readouterr().out
    assert "lost the connection to Artisan" in out
    assert f"not received (1): run `artisan sync {tmp_path}` again once Artisan is back" in out
    assert SyncIndex.load(Connection(URL, "key"), tmp_path).ids == {"a.md": "id-0"}
