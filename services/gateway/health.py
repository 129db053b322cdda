"""Liveness and readiness probes."""

import asyncio
from typing import Literal

import asyncpg
import httpx
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from faststream.nats import NatsBroker
from nats.js.errors import NotFoundError
from pydantic import BaseModel, Field

from services.gateway.deps import Broker, Pool
from shared.contracts import STREAM_NAME
from shared.models.server_settings import model_server_settings

router = APIRouter(tags=["health"])

CHECK_TIMEOUT_SECONDS = 2.0


class HealthResponse(BaseModel):
    status: str


class ReadinessResponse(BaseModel):
    status: Literal["ready", "unavailable"]
    detail: str
    checks: dict[str, str] = Field(description="each dependency: ok, or why it is down")


@router.get("/healthz", response_model=HealthResponse)
async def healthz() -> HealthResponse:
    """The process is up (it says nothing about NATS or Postgres: see /readyz)."""
    return HealthResponse(status="ok")


@router.get(
    "/readyz", response_model=ReadinessResponse, responses={503: {"model": ReadinessResponse}}
)
async def readyz(pool: Pool, broker: Broker) -> JSONResponse:
    """Ready when Postgres answers `SELECT 1`, NATS is connected and uploads can be queued —
    and, with an embedded model (`artisan up --model`), when it answers /health."""
    checks = {
        "database": await _check_database(pool),
        "nats": await _check_nats(broker),
        "jetstream": await _check_stream(broker),
    }
    if model_health := model_server_settings().model_health_url:
        checks["model"] = await _check_model(model_health)
    down = [f"{name} ({state})" for name, state in checks.items() if state != "ok"]
    if down:
        body = ReadinessResponse(
            status="unavailable", detail="Not ready: down: " + ", ".join(down), checks=checks
        )
        return JSONResponse(body.model_dump(), 503)
    body = ReadinessResponse(
        status="ready", detail="Postgres and NATS reachable, uploads can be queued", checks=checks
    )
    return JSONResponse(body.model_dump())


async def _check_database(pool: asyncpg.Pool) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECONDS):
            await pool.fetchval("SELECT 1")
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok"


async def _check_model(health_url: str) -> str:
    try:
        async with httpx.AsyncClient(timeout=CHECK_TIMEOUT_SECONDS) as http:
            response = await http.get(health_url)
    except httpx.HTTPError as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok" if response.status_code == 200 else f"not ready: {response.status_code}"


async def _check_nats(broker: NatsBroker) -> str:
    try:
        connected = await broker.ping(timeout=CHECK_TIMEOUT_SECONDS)
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok" if connected else "not connected"


async def _check_stream(broker: NatsBroker) -> str:
    """Without the stream an upload could not be queued (the gateway declares it at start-up)."""
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECONDS):
            await broker.connection.jetstream().stream_info(STREAM_NAME)
    except NotFoundError:
        return f"stream {STREAM_NAME} missing: restart the gateway"
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok"
