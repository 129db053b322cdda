"""Request dependencies: the application's shared resources and path parameters."""

from typing import Annotated
from uuid import UUID

import asyncpg
from fastapi import Depends, HTTPException, Request
from faststream.nats import NatsBroker

from services.gateway.progress_hub import ProgressHub
from shared.config import GatewaySettings

FILE_NOT_FOUND = "File not found: check the id with GET /v1/files."


def get_pool(request: Request) -> asyncpg.Pool:
    return request.app.state.pool


def get_broker(request: Request) -> NatsBroker:
    return request.app.state.broker


def get_hub(request: Request) -> ProgressHub:
    return request.app.state.hub


def get_settings(request: Request) -> GatewaySettings:
    return request.app.state.gateway_settings


def parse_file_id(file_id: str) -> UUID:
    """A malformed id names no file of yours: 404, like any other unknown id."""
    try:
        return UUID(file_id)
    except ValueError:
        raise HTTPException(404, FILE_NOT_FOUND) from None


Pool = Annotated[asyncpg.Pool, Depends(get_pool)]
Broker = Annotated[NatsBroker, Depends(get_broker)]
Hub = Annotated[ProgressHub, Depends(get_hub)]
Settings = Annotated[GatewaySettings, Depends(get_settings)]
FileId = Annotated[UUID, Depends(parse_file_id)]
