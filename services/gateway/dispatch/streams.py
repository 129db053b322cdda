"""The SSE streams: the database's current state first, then live events, always moving forward."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from uuid import UUID

import anyio
import asyncpg
from sse_starlette import ServerSentEvent

from services.gateway.dispatch.progress_hub import ProgressHub, Signal, Subscription
from services.gateway.dispatch.sse import ProgressFilter, is_terminal, to_sse
from shared.contracts import ProgressEvent
from shared.db import file_lists, files
from shared.progress import progress_event

PING_SECONDS = 15
SEND_TIMEOUT_SECONDS = 30
# progress events travel on core NATS (at most once): after this long without one, re-read the
# rows of unfinished files so a lost event costs a short delay instead of a stream that never ends
IDLE_RESYNC_SECONDS = 10.0
# time a stream has to end by itself once the server is stopping, before it is cancelled
SHUTDOWN_GRACE_SECONDS = 1.0

# returns the states to consider sending, or None when the stream's subject no longer exists
StateLoader = Callable[[ProgressFilter, Signal], Awaitable[list[ProgressEvent] | None]]


async def progress_stream(
    hub: ProgressHub,
    user_id: UUID,
    load_state: StateLoader,
    *,
    file_id: UUID | None = None,
    shutdown: anyio.Event | None = None,
) -> AsyncIterator[ServerSentEvent]:
    """Events for one file (ending once it is ready or failed) or for all of a user's files.

    `shutdown` is set by sse-starlette when the server is stopping: the stream then ends cleanly
    (a completed response) instead of being cancelled mid-way.
    """
    progress = ProgressFilter()
    # subscribe before reading the database, so no event can fall between the two
    with hub.subscribe(user_id, file_id) as subscription, _closed_on(shutdown, subscription):
        pending: ProgressEvent | Signal = Signal.RESYNC
        while pending is not Signal.CLOSED:
            if isinstance(pending, Signal):
                events = await load_state(progress, pending)
                if events is None:
                    return
            else:
                events = [pending]
            for event in events:
                if progress.accept(event):
                    yield to_sse(event)
                    if file_id is not None and is_terminal(event):
                        return
            pending = await subscription.next(IDLE_RESYNC_SECONDS)


@contextmanager
def _closed_on(shutdown: anyio.Event | None, subscription: Subscription) -> Iterator[None]:
    if shutdown is None:
        yield
        return

    async def close_on_shutdown() -> None:
        await shutdown.wait()
        subscription.close()

    watcher = asyncio.create_task(close_on_shutdown())
    try:
        yield
    finally:
        watcher.cancel()


def file_state(pool: asyncpg.Pool, user_id: UUID, file_id: UUID) -> StateLoader:
    async def load(progress: ProgressFilter, signal: Signal) -> list[ProgressEvent] | None:
        row = await files.get_file(pool, user_id=user_id, file_id=file_id)
        return None if row is None else [progress_event(row)]

    return load


def user_state(pool: asyncpg.Pool, user_id: UUID) -> StateLoader:
    """On connect or after dropped events: every processing file, and those we saw running."""

    async def load(progress: ProgressFilter, signal: Signal) -> list[ProgressEvent]:
        watched = progress.unfinished()
        if signal is Signal.IDLE and not watched:
            return []  # nothing running that a lost event could leave stuck
        rows = await file_lists.followed_files(pool, user_id=user_id, ids=watched)
        for gone in watched - {row["id"] for row in rows}:
            progress.forget(gone)
        return [progress_event(row) for row in rows]  # oldest first, as they were uploaded

    return load
