"""`artisan upload`: send files one request each and follow their progress to the end. A file
whose name you already have updates that file in place (same id; unchanged parts are reused)."""

import asyncio
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import httpx

from shared.cli.client import (
    CliError,
    Connection,
    api_key,
    describe_error,
    expect_success,
    gateway_url,
    run_command,
)
from shared.cli.discovery import Discovery, discover
from shared.cli.progress_view import make_view
from shared.cli.sse import follow_events, open_event_stream
from shared.cli.tracker import FileState, Tracker, View
from shared.formats import SUPPORTED_EXTENSIONS, media_type_for

UPLOAD_CONCURRENCY = 4  # one file per request, so one rejected file never blocks the others
TICK_SECONDS = 0.1  # redraw rate of the live view
POLL_SECONDS = 3.0  # safety net: re-read the file records in case an SSE event was lost
UPLOAD_TIMEOUT = httpx.Timeout(120.0, connect=5.0)
# over the server's upload rate (429 with Retry-After), a file waits its turn instead of failing
RATE_LIMIT_RETRIES = 20
MAX_RETRY_AFTER_SECONDS = 60.0


def upload(paths: list[Path], as_new: bool = False) -> int:
    found = discover(paths, SUPPORTED_EXTENSIONS)
    if not found.files:
        print("\n".join([*skipped_lines(found, SUPPORTED_EXTENSIONS), "nothing to upload"]))
        return 1
    return run_command(lambda: _upload(found, as_new))


def _upload(found: Discovery, as_new: bool) -> int:
    connection = Connection(gateway_url(), api_key())
    states = [FileState(path) for path in found.files]
    print(f"Uploading {_plural(len(states), 'file')} to {connection.url}", flush=True)
    view, interrupted = make_view(states, sys.stdout), False
    try:
        asyncio.run(_upload_over_http(connection, states, view, as_new))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        view.close()
    if interrupted:
        print(interrupted_message(states))
        return 130
    print("\n".join(summary_lines(states) + skipped_lines(found, SUPPORTED_EXTENSIONS)))
    return 0 if all(s.status == "ready" for s in states) and not found.missing else 1


async def _upload_over_http(
    connection: Connection, states: list[FileState], view: View, as_new: bool
) -> None:
    async with httpx.AsyncClient(base_url=connection.url, headers=connection.headers) as http:
        await upload_and_follow(http, states, view, as_new=as_new)


async def upload_and_follow(
    http: httpx.AsyncClient,
    states: list[FileState],
    view: View,
    poll_seconds: float = POLL_SECONDS,
    as_new: bool = False,
) -> None:
    """Upload every file (a name you have already updates that file) and follow its progress
    until each is ready, failed or rejected."""
    tracker = Tracker(view)
    existing = {} if as_new else await files_by_name(http)
    stream = await open_event_stream(http)  # before any upload, so no event can be missed
    events = asyncio.create_task(follow_events(http, stream, tracker))
    uploads = asyncio.create_task(upload_files(http, states, tracker, existing))
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


async def files_by_name(http: httpx.AsyncClient) -> dict[str, str]:
    """Filename → id of your newest file of that name: an upload of that name updates it."""
    response = expect_success(await http.get("/v1/files"))
    by_name: dict[str, str] = {}
    for record in response.json()["items"]:  # newest first
        by_name.setdefault(record["filename"], record["id"])
    return by_name


async def upload_files(
    http: httpx.AsyncClient,
    states: list[FileState],
    tracker: Tracker,
    existing: Mapping[str, str] | None = None,
) -> None:
    limit = asyncio.Semaphore(UPLOAD_CONCURRENCY)

    async def upload_when_free(state: FileState) -> None:
        async with limit:
            await upload_one(http, state, tracker, (existing or {}).get(state.path.name))

    await asyncio.gather(*(upload_when_free(state) for state in states))


async def upload_one(
    http: httpx.AsyncClient, state: FileState, tracker: Tracker, file_id: str | None = None
) -> None:
    """POST one file, or PUT it as the new version of `file_id`; a refusal (too large,
    unsupported, empty…) is shown next to that file."""
    try:
        content = await asyncio.to_thread(state.path.read_bytes)
        part = (state.path.name, content, media_type_for(state.path.name))
        response = await send_when_allowed(http, part, file_id)
        body = expect_success(response).json()
        record = body if file_id else body["items"][0]
    except (OSError, httpx.HTTPError, CliError) as exc:
        tracker.on_rejected(state, describe_error(exc))
    except (ValueError, LookupError):
        tracker.on_rejected(state, "unexpected answer from the server (no file record)")
    else:
        tracker.on_uploaded(state, record)


async def send_when_allowed(
    http: httpx.AsyncClient, part: tuple[str, bytes, str], file_id: str | None = None
) -> httpx.Response:
    """POST one file (PUT it to `file_id`); a 429 that says when to come back (Retry-After) is
    waited out and the file sent again, a few times; any other answer is returned as it is."""
    method, url = ("PUT", f"/v1/files/{file_id}") if file_id else ("POST", "/v1/files")
    for _ in range(RATE_LIMIT_RETRIES):
        response = await http.request(method, url, files=[("files", part)], timeout=UPLOAD_TIMEOUT)
        wait = response.headers.get("Retry-After", "")
        if response.status_code != 429 or not wait.isdigit():
            return response
        await asyncio.sleep(min(float(wait), MAX_RETRY_AFTER_SECONDS))
    return response


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
