"""`artisan upload`: send files one request each and follow their progress to the end. A file
whose name you already have updates that file in place (same id; unchanged parts are reused).
If Artisan stops answering, the command says so, retries, and after a bound says which files it
received (they carry on there) and which must be sent again."""

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from shared.cli.client import (
    MAX_PAGE,
    CliError,
    Connection,
    api_key,
    describe_error,
    expect_success,
    gateway_url,
    records_until_seen,
    run_command,
)
from shared.cli.discovery import Discovery, discover
from shared.cli.link import ConnectionLost, Link, is_connection_failure
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

# which existing file (id) each local file updates in place, from your files' records
Matcher = Callable[[Sequence[FileState], Sequence[Mapping[str, Any]]], Mapping[Path, str]]


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
    except ConnectionLost:
        view.close()
        print("\n".join(lost_lines(states, "run the same command again")), flush=True)
        raise  # run_command says why, and the command fails
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
        match = None if as_new else match_by_name
        await upload_and_follow(http, states, view, match=match)


async def upload_and_follow(
    http: httpx.AsyncClient,
    states: list[FileState],
    view: View,
    poll_seconds: float = POLL_SECONDS,
    *,
    match: Matcher | None = None,
) -> None:
    """Upload every file (each one `match` pairs with a file of yours updates it) and follow its
    progress until each is ready, failed or rejected; ConnectionLost if Artisan stays away."""
    tracker, link = Tracker(view), Link(str(http.base_url).rstrip("/"), view.note)
    existing = match(states, await your_files(http)) if match else {}
    stream = await open_event_stream(http)  # before any upload, so no event can be missed
    events = asyncio.create_task(follow_events(http, stream, tracker, link))
    uploads = asyncio.create_task(upload_files(http, states, tracker, existing, link))
    try:
        next_poll = time.monotonic() + poll_seconds
        while not all(s.done for s in states):
            for task in (uploads, events):
                if task.done():
                    task.result()  # a crash or ConnectionLost, not a rejected file: surface it
            await asyncio.sleep(TICK_SECONDS)
            view.tick()
            if time.monotonic() >= next_poll:
                await poll_records(http, tracker, link)
                next_poll = time.monotonic() + poll_seconds
    finally:
        events.cancel()
        uploads.cancel()
        await asyncio.gather(events, uploads, return_exceptions=True)


async def your_files(http: httpx.AsyncClient) -> list[dict[str, Any]]:
    """Every file record of yours, newest first (page after page, where the list has pages)."""
    records: list[dict[str, Any]] = []
    params = {"limit": str(MAX_PAGE)}
    while True:
        page = expect_success(await http.get("/v1/files", params=params)).json()
        records += page["items"]
        if not page.get("next"):
            return records
        params["before"] = page["next"]


def match_by_name(
    states: Sequence[FileState], records: Sequence[Mapping[str, Any]]
) -> dict[Path, str]:
    """Each file whose name you already have updates your newest file of that name; files that
    share a name in one upload (a/notes.md, b/notes.md) are sent as new: neither overwrites."""
    newest: dict[str, str] = {}
    for record in records:  # newest first
        newest.setdefault(record["filename"], str(record["id"]))
    names = Counter(state.path.name for state in states)
    return {
        state.path: newest[state.path.name]
        for state in states
        if names[state.path.name] == 1 and state.path.name in newest
    }


async def upload_files(
    http: httpx.AsyncClient,
    states: list[FileState],
    tracker: Tracker,
    existing: Mapping[Path, str] | None = None,
    link: Link | None = None,
) -> None:
    limit = asyncio.Semaphore(UPLOAD_CONCURRENCY)

    async def upload_when_free(state: FileState) -> None:
        async with limit:
            await upload_one(http, state, tracker, (existing or {}).get(state.path), link)

    await asyncio.gather(*(upload_when_free(state) for state in states))


async def upload_one(
    http: httpx.AsyncClient,
    state: FileState,
    tracker: Tracker,
    file_id: str | None = None,
    link: Link | None = None,
) -> None:
    """POST one file, or PUT it as the new version of `file_id`; a refusal (too large,
    unsupported, empty…) is shown next to that file. While Artisan is unreachable the file is
    sent again (a resent file is recognised by its content, never stored twice)."""
    try:
        content = await asyncio.to_thread(state.path.read_bytes)
        part = (state.path.name, content, media_type_for(state.path.name))
        response = await _send_when_reachable(http, part, file_id, link)
        body = expect_success(response).json()
        record = body if file_id else body["items"][0]
    except ConnectionLost:
        raise  # not this file's fault: the command stops and says what became of each file
    except (OSError, httpx.HTTPError, CliError) as exc:
        tracker.on_rejected(state, describe_error(exc))
    except (ValueError, LookupError):
        tracker.on_rejected(state, "unexpected answer from the server (no file record)")
    else:
        tracker.on_uploaded(state, record)


async def _send_when_reachable(
    http: httpx.AsyncClient, part: tuple[str, bytes, str], file_id: str | None, link: Link | None
) -> httpx.Response:
    while True:
        try:
            response = await send_when_allowed(http, part, file_id)
        except httpx.HTTPError as exc:
            if link is None or not is_connection_failure(exc):
                raise
            await link.retry_after(exc, announce=False)
        else:
            if link is not None:
                link.succeeded()
            return response


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


async def poll_records(http: httpx.AsyncClient, tracker: Tracker, link: Link) -> None:
    """Re-read the file records: a lost SSE event must never leave the upload waiting forever.
    An unreachable server is told to the link at once (a half-dead stream may not say so yet)."""
    unfinished = [file_id for file_id, state in tracker.by_id.items() if not state.done]
    try:
        records = await records_until_seen(http, unfinished)
    except httpx.HTTPError as exc:
        if is_connection_failure(exc):
            link.failed(exc, announce=False)  # ConnectionLost past the bound
        return  # the next poll or the event stream will catch up
    except (ValueError, LookupError):
        return
    link.succeeded()
    for record in records:
        tracker.on_record(record)


def summary_lines(states: Sequence[FileState]) -> list[str]:
    ready = sum(s.status == "ready" for s in states)
    failed = [s for s in states if s.status in ("failed", "rejected")]
    lines = [f"\n{ready} ready, {len(failed)} failed"]
    return lines + [f"  ✗ {s.name} — {s.message}" for s in failed]


def skipped_lines(
    found: Discovery, extensions: Collection[str], *, each_unsupported: bool = True
) -> list[str]:
    """What was not sent and why; links out of the folder are always named."""
    lines = [f"not found: {path}" for path in found.missing]
    if found.unsupported:
        supported = " ".join(extensions)
        count = _plural(len(found.unsupported), "file")
        lines.append(f"skipped {count} of unsupported types (supported: {supported})")
        if each_unsupported:
            lines[-1] += ":"
            lines += [f"  {path}" for path in found.unsupported]
    for reason, paths in found.skipped.items():
        lines.append(f"skipped {len(paths)}: {reason}: {', '.join(map(str, paths))}")
    return lines


def lost_lines(states: Sequence[FileState], send_again: str) -> list[str]:
    """After giving up on a lost server: what became of each file not yet finished."""
    unfinished = [s for s in states if not s.done]
    received = [s.name for s in unfinished if s.file_id is not None]
    unsent = [s.name for s in unfinished if s.file_id is None]
    lines = ["\n" + "\n".join(summary_lines(states)).strip()]
    if received:
        lines.append(
            f"received by Artisan, still processing there ({len(received)}): they carry on"
            " without this command; `artisan files` shows how they end once Artisan is back"
        )
        lines += [f"  {name}" for name in received]
    if unsent:
        lines.append(
            f"not received ({len(unsent)}): {send_again} once Artisan is back (a file it"
            " already has is recognised, not stored twice)"
        )
        lines += [f"  {name}" for name in unsent]
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
