"""Server-sent progress events for one file or for all of a user's files."""

from collections.abc import AsyncIterator
from typing import Annotated

import anyio
from fastapi import APIRouter, Header, HTTPException, Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from services.gateway.auth import CurrentUser
from services.gateway.deps import FILE_NOT_FOUND, FileId, Hub, Pool, Streams
from services.gateway.dispatch.sse import event_id, is_terminal
from services.gateway.dispatch.streams import (
    PING_SECONDS,
    SEND_TIMEOUT_SECONDS,
    SHUTDOWN_GRACE_SECONDS,
    file_state,
    progress_stream,
    user_state,
)
from services.gateway.fair_use.limits import HeldEventSource, StreamSlot
from services.gateway.schemas import ErrorResponse
from shared.db import files
from shared.progress import progress_event

router = APIRouter(tags=["events"])
RECONNECT_MILLISECONDS = 2000  # how long EventSource waits before reconnecting

LastEventId = Annotated[
    str | None, Header(max_length=200, description="sent by EventSource on reconnect")
]
_STREAM = {
    200: {
        "content": {"text/event-stream": {}},
        "description": "`event: progress` with ProgressEvent JSON as data; ids as in "
        "services/gateway/dispatch/sse.py",
    },
    401: {"model": ErrorResponse},
}


@router.get(
    "/v1/files/{file_id}/events",
    response_class=EventSourceResponse,
    responses={
        **_STREAM,
        204: {"description": "the file had finished and the client saw it"},
        404: {"model": ErrorResponse},
    },
)
async def file_events(
    file_id: FileId,
    user: CurrentUser,
    pool: Pool,
    hub: Hub,
    streams: Streams,
    last_event_id: LastEventId = None,
) -> Response:
    """The file's current state, then live progress; ends once the file is ready or failed."""
    row = await files.get_file(pool, user_id=user.id, file_id=file_id)
    if row is None:
        raise HTTPException(404, FILE_NOT_FOUND)
    current = progress_event(row)
    if is_terminal(current) and last_event_id == event_id(current):
        # the client already has the final state; 204 tells EventSource not to reconnect again
        return Response(status_code=204)
    slot = streams.take(user.id)
    shutdown = anyio.Event()
    loader = file_state(pool, user.id, file_id)
    stream = progress_stream(hub, user.id, loader, file_id=file_id, shutdown=shutdown)
    return _event_source(stream, shutdown, slot)


@router.get("/v1/events", response_class=EventSourceResponse, responses=_STREAM)
async def user_events(user: CurrentUser, pool: Pool, hub: Hub, streams: Streams) -> Response:
    """Every processing file's current state, then live progress of all your files; stays open.

    A reconnect (Last-Event-ID) is answered the same way: the current state of every file still
    processing. Files that finished while you were away are in GET /v1/files.
    """
    slot = streams.take(user.id)
    shutdown = anyio.Event()
    stream = progress_stream(hub, user.id, user_state(pool, user.id), shutdown=shutdown)
    return _event_source(stream, shutdown, slot)


def _event_source(
    stream: AsyncIterator[ServerSentEvent], shutdown: anyio.Event, slot: StreamSlot
) -> Response:
    return HeldEventSource(
        _opened(stream),
        slot=slot,
        ping=PING_SECONDS,
        send_timeout=SEND_TIMEOUT_SECONDS,
        shutdown_event=shutdown,
        shutdown_grace_period=SHUTDOWN_GRACE_SECONDS,
    )


async def _opened(stream: AsyncIterator[ServerSentEvent]) -> AsyncIterator[ServerSentEvent]:
    """The stream, after a first `retry:` field sent at once: Firefox's EventSource reports itself
    open only when body bytes arrive, so a quiet stream would look stuck until the first ping."""
    yield ServerSentEvent(retry=RECONNECT_MILLISECONDS)
    async for event in stream:
        yield event
