"""`artisan upload`, `artisan files`, `artisan rm`: the command-line client of the gateway's API."""

import asyncio
import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import quote

import httpx

from shared.config import gateway_settings, infra_settings
from shared.extraction import SUPPORTED_EXTENSIONS, media_type_for
from shared.progress import stage_message

UPLOAD_CONCURRENCY = 4  # one file per request, so one rejected file never blocks the others
FINAL_STATUSES = frozenset({"ready", "failed", "rejected"})
STAGE_ORDER = ("uploading", "uploaded", "extracting", "classifying", "chunking", "processing")
BAR_WIDTH = 10
MAX_NAME_WIDTH = 40
TICK_SECONDS = 0.1  # redraw rate of the live view
POLL_SECONDS = 3.0  # safety net: re-read the file records in case an SSE event was lost
RECONNECT_SECONDS = 0.5
UPLOAD_TIMEOUT = httpx.Timeout(120.0, connect=5.0)
STREAM_TIMEOUT = httpx.Timeout(10.0, read=None)  # progress events may be minutes apart


class CliError(Exception):
    """A failure the user can act on; printed as `error: <message>`."""


# ── connection ────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Connection:
    url: str
    api_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


def gateway_url() -> str:
    """ARTISAN_URL, else the address `artisan up` serves the gateway on."""
    if url := os.environ.get("ARTISAN_URL"):
        return url.rstrip("/")
    settings = gateway_settings()
    return f"http://{_connectable_host(settings.host)}:{settings.port}"


def _connectable_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):  # a listen-on-all address is reached through loopback
        return "127.0.0.1"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def api_key() -> str:
    """ARTISAN_API_KEY, else the local user's key that `artisan up` saved in the data directory."""
    if key := os.environ.get("ARTISAN_API_KEY", "").strip():
        return key
    key_file = infra_settings().data_dir / "local-user.key"
    if key_file.is_file() and (key := key_file.read_text().strip()):
        return key
    raise CliError(
        f"no API key: start Artisan with `artisan up` (it saves the local user's key in"
        f" {key_file}), or create a user with `artisan users create NAME` and set ARTISAN_API_KEY"
    )


def api_error(response: httpx.Response) -> str:
    """The `detail` of an API error response, or its HTTP status."""
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):  # FastAPI validation errors: a list of {loc, msg, type}
        detail = "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    return str(detail) if detail else f"HTTP {response.status_code} {response.reason_phrase}"


def _expect_success(response: httpx.Response) -> httpx.Response:
    if not response.is_success:
        raise CliError(api_error(response))
    return response


def _run(command: Callable[[], int]) -> int:
    """Run a command, turning API and connection failures into one clear line on stderr."""
    try:
        return command()
    except CliError as exc:
        message = str(exc)
    except (httpx.ConnectError, httpx.ConnectTimeout):
        message = f"cannot reach Artisan at {gateway_url()} — is `artisan up` running?"
    except httpx.HTTPError as exc:
        message = f"talking to Artisan at {gateway_url()} failed: {_describe(exc)}"
    except KeyboardInterrupt:
        return 130
    print(f"error: {message}", file=sys.stderr)
    return 1


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


# ── artisan files / artisan rm ────────────────────────────────────────────────────────────────


def list_files() -> int:
    return _run(_list_files)


def _list_files() -> int:
    connection = Connection(gateway_url(), api_key())
    with httpx.Client(base_url=connection.url, headers=connection.headers, timeout=30) as http:
        items = _expect_success(http.get("/v1/files")).json()["items"]
    print(files_table(items) if items else "no files yet — try `artisan upload PATH`")
    return 0


def files_table(records: Sequence[Mapping[str, Any]]) -> str:
    headers = ["ID", "NAME", "TYPE", "STATUS", "PROGRESS", "CHUNKS"]
    rows = [
        [
            str(r["id"]),
            str(r["filename"]),
            r.get("file_type") or "-",
            str(r["status"]),
            f"{r['progress']}%",
            f"{r['processed_chunks']}/{r['total_chunks']}",
        ]
        for r in records
    ]
    return render_table(headers, rows)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = (
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in [headers, *rows]
    )
    return "\n".join(line.rstrip() for line in lines)


def remove(file_id: str) -> int:
    return _run(lambda: _remove(file_id))


def _remove(file_id: str) -> int:
    connection = Connection(gateway_url(), api_key())
    path = f"/v1/files/{quote(file_id, safe='')}"
    with httpx.Client(base_url=connection.url, headers=connection.headers, timeout=30) as http:
        record = _expect_success(http.get(path)).json()  # for its name: the ID alone says little
        _expect_success(http.delete(path))
    print(f"deleted {record['filename']}")
    return 0


# ── artisan upload: what to send ──────────────────────────────────────────────────────────────


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)


def discover(paths: Iterable[Path], extensions: Collection[str]) -> Discovery:
    """The files to upload under the given files and folders, each once, in a stable order."""
    found, seen = Discovery(), set()
    for path in paths:
        if not path.exists():
            found.missing.append(path)
            continue
        for candidate in _visible_files(path) if path.is_dir() else [path]:
            if candidate.resolve() in seen:
                continue
            seen.add(candidate.resolve())
            supported = candidate.suffix.lower() in extensions
            (found.files if supported else found.unsupported).append(candidate)
    return found


def _visible_files(folder: Path) -> Iterator[Path]:
    """Files under folder, recursively, leaving out hidden ones (.git, .DS_Store, …)."""
    for parent, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # pruned in place: not walked
        for name in sorted(names):
            if not name.startswith(".") and (Path(parent) / name).is_file():
                yield Path(parent) / name


# ── artisan upload: following each file ───────────────────────────────────────────────────────


@dataclass(eq=False)  # identity-hashed: the views keep per-file bookkeeping keyed by state
class FileState:
    path: Path
    file_id: str | None = None
    status: str = "uploading"  # uploading | processing | ready | failed | rejected
    stage: str = "uploading"
    progress: int = 0
    processed_chunks: int = 0
    message: str = "Uploading…"

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def done(self) -> bool:
        return self.status in FINAL_STATUSES

    def apply(self, event: Mapping[str, Any]) -> bool:
        """Take a progress event that moves the file forward; stale or repeated ones are ignored."""
        stage, progress = event.get("stage", self.stage), int(event.get("progress", 0))
        processed, status = int(event.get("processed_chunks", 0)), event.get("status", self.status)
        forward = position(progress, stage, processed) > self.position
        if self.done or (status == "processing" and not forward):
            return False
        self.status, self.stage, self.progress = status, stage, progress
        self.processed_chunks = processed
        self.message = event.get("message") or self.message
        return True

    @property
    def position(self) -> tuple[int, int, int]:
        return position(self.progress, self.stage, self.processed_chunks)

    def reject(self, reason: str) -> None:
        self.status = self.stage = "rejected"
        self.message = f"rejected: {reason}"


def position(progress: int, stage: str, processed_chunks: int) -> tuple[int, int, int]:
    """Order of a file's states: workers' events can arrive out of order and a poll can be stale;
    a stage breaks a tie in progress (uploaded and extracting both stand at 10%)."""
    rank = STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)
    return (progress, rank, processed_chunks)


def event_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A file record in the shape of an SSE progress event."""
    stage, status = record["processing_stage"], record["status"]
    message = stage_message(
        stage, record["processed_chunks"], record["total_chunks"], record.get("error_message")
    )
    if record.get("duplicate"):
        message = "already uploaded" if status == "ready" else f"already uploaded; {message}"
    return {
        "file_id": str(record["id"]),
        "status": status,
        "stage": stage,
        "progress": record["progress"],
        "processed_chunks": record["processed_chunks"],
        "message": message,
    }


class View(Protocol):
    def changed(self, state: FileState) -> None: ...
    def tick(self) -> None: ...
    def close(self) -> None: ...


class Tracker:
    """Routes progress events and file records to the state of the file they are about."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.by_id: dict[str, FileState] = {}
        # events for ids we don't know yet: ours whose POST response is still on its way, or others
        self.unclaimed: dict[str, Mapping[str, Any]] = {}

    def on_event(self, event: Mapping[str, Any]) -> None:
        file_id = str(event.get("file_id", ""))
        if file_id in self.by_id:
            self._apply(self.by_id[file_id], event)
        else:
            self.unclaimed[file_id] = event

    def on_uploaded(self, state: FileState, record: Mapping[str, Any]) -> None:
        state.file_id = str(record["id"])
        self.by_id[state.file_id] = state
        self._apply(state, event_from_record(record))
        if early := self.unclaimed.pop(state.file_id, None):
            self._apply(state, early)

    def on_record(self, record: Mapping[str, Any]) -> None:
        """A file record read from the API (the poll): applies only to files of this upload."""
        if state := self.by_id.get(str(record.get("id"))):
            self._apply(state, event_from_record(record))

    def on_rejected(self, state: FileState, reason: str) -> None:
        state.reject(reason)
        self.view.changed(state)

    def _apply(self, state: FileState, event: Mapping[str, Any]) -> None:
        if state.apply(event):
            self.view.changed(state)


# ── artisan upload: the progress display ──────────────────────────────────────────────────────

CURSOR_HIDE, CURSOR_SHOW, CLEAR_TO_END = "\x1b[?25l", "\x1b[?25h", "\x1b[J"


def progress_bar(percent: int, width: int = BAR_WIDTH) -> str:
    filled = round(max(0, min(100, percent)) * width / 100)
    return "█" * filled + "░" * (width - filled)


def fit(text: str, width: int) -> str:
    """Text cut to width, keeping its end (the file name) when it is too long."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def progress_line(state: FileState, name_width: int) -> str:
    """`name  [██████░░░░]  60%  Compressing chunks 5/12`"""
    name = fit(state.name, name_width).ljust(name_width)
    return f"{name}  [{progress_bar(state.progress)}] {state.progress:>3}%  {state.message}"


def name_width(states: Sequence[FileState]) -> int:
    return min(MAX_NAME_WIDTH, max((len(s.name) for s in states), default=0))


def redraw(previous_lines: int, permanent: Sequence[str], live: Sequence[str], columns: int) -> str:
    """ANSI text replacing the previous live block: permanent lines (scrolling away), then live."""
    cursor_up = f"\x1b[{previous_lines}F" if previous_lines else ""
    lines = [*permanent, *live]
    # one column spare: a line filling the width would wrap and break the line count
    return cursor_up + CLEAR_TO_END + "".join(line[: max(1, columns - 1)] + "\n" for line in lines)


class TerminalView:
    """A terminal: bars of unfinished files redrawn in place; finished files scroll up, final."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.states, self.out, self.width = states, out, name_width(states)
        self._live_lines, self._finished = 0, set[FileState]()
        self._dirty, self._started, self._closed = True, False, False

    def changed(self, state: FileState) -> None:
        self._dirty = True

    def tick(self) -> None:
        if not self._dirty:
            return
        if not self._started:  # not at construction: an early error must leave the terminal as is
            self._started = True
            self.out.write(CURSOR_HIDE)
        self._dirty = False
        columns, rows = shutil.get_terminal_size()
        finished = [s for s in self.states if s.done and s not in self._finished]
        self._finished.update(finished)
        live = [progress_line(s, self.width) for s in self.states if not s.done]
        if len(live) > rows - 2:  # the cursor cannot move above the screen: show what fits
            live = [*live[: max(1, rows - 3)], f"… and {len(live) - max(1, rows - 3)} more"]
        permanent = [progress_line(s, self.width) for s in finished]
        self.out.write(redraw(self._live_lines, permanent, live, columns))
        self.out.flush()
        self._live_lines = len(live)

    def close(self) -> None:
        if self._started and not self._closed:
            self._closed, self._dirty = True, True
            self.tick()
            self.out.write(CURSOR_SHOW)
            self.out.flush()


class LineView:
    """Not a terminal (a pipe, a log file): one plain line each time a file changes stage."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.out, self.width = out, name_width(states)
        self._shown: dict[FileState, tuple[str, str]] = {}

    def changed(self, state: FileState) -> None:
        if self._shown.get(state) != (state.status, state.stage):
            self._shown[state] = (state.status, state.stage)
            print(progress_line(state, self.width), file=self.out, flush=True)

    def tick(self) -> None:
        pass

    def close(self) -> None:
        pass


def make_view(states: Sequence[FileState], out: TextIO) -> View:
    live = out.isatty() and os.environ.get("TERM") != "dumb"
    return TerminalView(states, out) if live else LineView(states, out)


# ── artisan upload: server-sent events ────────────────────────────────────────────────────────


@dataclass
class ServerSentEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None


class SseParser:
    """Incremental text/event-stream parser: the WHATWG rules Artisan's stream needs."""

    def __init__(self, last_event_id: str | None = None) -> None:
        self.last_event_id = last_event_id
        self._event, self._data = "", list[str]()

    def feed(self, line: str) -> ServerSentEvent | None:
        """Take one line (without its line ending); returns the event a blank line completes."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):  # a comment: keep-alive pings
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        event, data = self._event or "message", self._data
        self._event, self._data = "", []
        if not data:  # per the spec, an event without data is dropped
            return None
        return ServerSentEvent(event=event, data="\n".join(data), id=self.last_event_id)


async def open_event_stream(http: httpx.AsyncClient, last_id: str | None = None) -> httpx.Response:
    """The user's progress stream, connected: the server has accepted it when this returns."""
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if last_id:
        headers["Last-Event-ID"] = last_id
    request = http.build_request("GET", "/v1/events", headers=headers, timeout=STREAM_TIMEOUT)
    response = await http.send(request, stream=True)
    if response.status_code != 200:
        await response.aread()
        await response.aclose()
        raise CliError(api_error(response))
    return response


async def follow_events(http: httpx.AsyncClient, stream: httpx.Response, tracker: Tracker) -> None:
    """Feed progress events to the tracker forever, reconnecting (with Last-Event-ID) if dropped."""
    last_id = None
    while True:
        last_id = await _read_events(stream, tracker, last_id)
        stream = await _reconnect(http, last_id)


async def _read_events(stream: httpx.Response, tracker: Tracker, last_id: str | None) -> str | None:
    """Deliver the stream's progress events until it ends; returns the last event id seen."""
    parser = SseParser(last_id)  # a fresh one: a half-received event must not leak into the next
    try:
        async for line in stream.aiter_lines():
            if (event := parser.feed(line)) and event.event == "progress":
                _deliver(event.data, tracker)
    except httpx.HTTPError:
        pass  # dropped: the caller reconnects, and the gateway first resends the current state
    finally:
        await stream.aclose()
    return parser.last_event_id


async def _reconnect(http: httpx.AsyncClient, last_id: str | None) -> httpx.Response:
    while True:
        await asyncio.sleep(RECONNECT_SECONDS)
        with contextlib.suppress(httpx.HTTPError, CliError):  # meanwhile, the record poll runs
            return await open_event_stream(http, last_id)


def _deliver(data: str, tracker: Tracker) -> None:
    try:
        payload = json.loads(data)
    except ValueError:
        return
    if isinstance(payload, dict):
        tracker.on_event(payload)


# ── artisan upload: the command ───────────────────────────────────────────────────────────────


def upload(paths: list[Path]) -> int:
    found = discover(paths, SUPPORTED_EXTENSIONS)
    if not found.files:
        print("\n".join([*skipped_lines(found, SUPPORTED_EXTENSIONS), "nothing to upload"]))
        return 1
    return _run(lambda: _upload(found))


def _upload(found: Discovery) -> int:
    connection = Connection(gateway_url(), api_key())
    states = [FileState(path) for path in found.files]
    print(f"Uploading {_plural(len(states), 'file')} to {connection.url}", flush=True)
    view, interrupted = make_view(states, sys.stdout), False
    try:
        asyncio.run(_upload_over_http(connection, states, view))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        view.close()
    if interrupted:
        print(interrupted_message(states))
        return 130
    print("\n".join(summary_lines(states) + skipped_lines(found, SUPPORTED_EXTENSIONS)))
    return 0 if all(s.status == "ready" for s in states) and not found.missing else 1


async def _upload_over_http(connection: Connection, states: list[FileState], view: View) -> None:
    async with httpx.AsyncClient(base_url=connection.url, headers=connection.headers) as http:
        await upload_and_follow(http, states, view)


async def upload_and_follow(
    http: httpx.AsyncClient, states: list[FileState], view: View, poll_seconds: float = POLL_SECONDS
) -> None:
    """Upload every file and follow its progress until each is ready, failed or rejected."""
    tracker = Tracker(view)
    stream = await open_event_stream(http)  # before any upload, so no event can be missed
    events = asyncio.create_task(follow_events(http, stream, tracker))
    uploads = asyncio.create_task(upload_files(http, states, tracker))
    try:
        next_poll = time.monotonic() + poll_seconds
        while not all(s.done for s in states):
            if uploads.done():
                uploads.result()  # a crash, not a rejected file (those are states): surface it
            await asyncio.sleep(TICK_SECONDS)
            view.tick()
            if time.monotonic() >= next_poll:
                await poll_records(http, tracker)
                next_poll = time.monotonic() + poll_seconds
    finally:
        events.cancel()
        uploads.cancel()
        await asyncio.gather(events, uploads, return_exceptions=True)


async def upload_files(http: httpx.AsyncClient, states: list[FileState], tracker: Tracker) -> None:
    limit = asyncio.Semaphore(UPLOAD_CONCURRENCY)

    async def upload_when_free(state: FileState) -> None:
        async with limit:
            await upload_one(http, state, tracker)

    await asyncio.gather(*(upload_when_free(state) for state in states))


async def upload_one(http: httpx.AsyncClient, state: FileState, tracker: Tracker) -> None:
    """POST one file; a refusal (too large, unsupported, empty…) is shown next to that file."""
    try:
        content = await asyncio.to_thread(state.path.read_bytes)
        part = (state.path.name, content, media_type_for(state.path.name))
        response = await http.post("/v1/files", files=[("files", part)], timeout=UPLOAD_TIMEOUT)
        record = _expect_success(response).json()["items"][0]
    except (OSError, httpx.HTTPError, CliError) as exc:
        tracker.on_rejected(state, _describe(exc))
    except (ValueError, LookupError):
        tracker.on_rejected(state, "unexpected answer from the server (no file record)")
    else:
        tracker.on_uploaded(state, record)


async def poll_records(http: httpx.AsyncClient, tracker: Tracker) -> None:
    """Re-read the file records: a lost SSE event must never leave the upload waiting forever."""
    try:
        response = await http.get("/v1/files")
        records = response.json()["items"] if response.is_success else []
    except (httpx.HTTPError, ValueError, LookupError):
        return  # transient; the next poll or the event stream will catch up
    for record in records:
        tracker.on_record(record)


def summary_lines(states: Sequence[FileState]) -> list[str]:
    ready = sum(s.status == "ready" for s in states)
    failed = [s for s in states if s.status in ("failed", "rejected")]
    lines = [f"\n{ready} ready, {len(failed)} failed"]
    return lines + [f"  ✗ {s.name} — {s.message}" for s in failed]


def skipped_lines(found: Discovery, extensions: Collection[str]) -> list[str]:
    lines = [f"not found: {path}" for path in found.missing]
    if found.unsupported:
        supported = " ".join(extensions)
        count = _plural(len(found.unsupported), "file")
        lines.append(f"skipped {count} of unsupported types (supported: {supported}):")
        lines += [f"  {path}" for path in found.unsupported]
    return lines


def interrupted_message(states: Sequence[FileState]) -> str:
    sent = sum(s.file_id is not None for s in states)
    unsent = sum(s.status == "uploading" for s in states)
    message = (
        f"\nStopped watching; uploaded files ({sent} of {len(states)}) keep processing on the"
        " server. `artisan files` shows their progress."
    )
    if unsent:
        message += f"\n{_plural(unsent, 'file')} not sent: run the same command again to send them."
    return message


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
