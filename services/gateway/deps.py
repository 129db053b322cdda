"""Request dependencies: the application's shared resources and path parameters."""

from typing import Annotated
from uuid import UUID

import asyncpg
from fastapi import Depends, HTTPException, Path, Request
from faststream.nats import NatsBroker

from services.gateway.dispatch.progress_hub import GatewayProgress, ProgressHub
from services.gateway.fair_use.limits import FairUse, StreamSlots
from shared.config import GatewaySettings

FILE_NOT_FOUND = "File not found: check the id with GET /v1/files."
MAX_ID_CHARS = 100  # an id in a path or query is a UUID (36); anything longer is a 422

# Dependencies are `async def` though none awaits: FastAPI runs a plain `def` dependency in its
# thread pool, a thread hop for each one of each request, and while uploads arrive those hops
# hand the GIL back and forth with the event loop that SSE events are waiting on.
# (tests/unit/gateway/test_dependencies.py keeps it so.)


async def get_pool(request: Request) -> asyncpg.Pool:
    return request.app.state.pool


async def get_broker(request: Request) -> NatsBroker:
    return request.app.state.broker


async def get_hub(request: Request) -> ProgressHub:
    return request.app.state.hub


async def get_progress(request: Request) -> GatewayProgress:
    return request.app.state.progress


async def get_settings(request: Request) -> GatewaySettings:
    return request.app.state.gateway_settings


def get_fair_use(request: Request) -> FairUse:
    return request.app.state.fair_use


async def get_stream_slots(request: Request) -> StreamSlots:
    return get_fair_use(request).streams


async def parse_file_id(file_id: Annotated[str, Path(max_length=MAX_ID_CHARS)]) -> UUID:
    """A malformed id names no file of yours: 404, like any other unknown id."""
    try:
        return UUID(file_id)
    except ValueError:
        raise HTTPException(404, FILE_NOT_FOUND) from None


Pool = Annotated[asyncpg.Pool, Depends(get_pool)]
Broker = Annotated[NatsBroker, Depends(get_broker)]
Hub = Annotated[ProgressHub, Depends(get_hub)]
Progress = Annotated[GatewayProgress, Depends(get_progress)]
Settings = Annotated[GatewaySettings, Depends(get_settings)]
Streams = Annotated[StreamSlots, Depends(get_stream_slots)]
FileId = Annotated[UUID, Depends(parse_file_id)]
