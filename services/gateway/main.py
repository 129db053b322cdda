"""Entry point of the gateway: the FastAPI app, its resources, and uvicorn."""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import uvicorn
from fastapi import FastAPI
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.trace import Span

from services.gateway import health, metrics, web
from services.gateway.body_limit import BodyLimit, LimitFor
from services.gateway.chat import personas_router as personas
from services.gateway.chat import router as chat
from services.gateway.conversations import journal_router as journal
from services.gateway.conversations import router as conversations
from services.gateway.conversations import turns_router as turns
from services.gateway.dispatch.dispatcher import Dispatcher
from services.gateway.dispatch.progress_hub import GatewayProgress, ProgressHub, connect_hub
from services.gateway.errors import install_error_handlers
from services.gateway.fair_use.limits import FairUse
from services.gateway.files import documents_router as documents
from services.gateway.files import events_router as events
from services.gateway.files import formats_router as formats
from services.gateway.files import router as files
from services.gateway.mcp.endpoint import MCP_PATH, mcp_body_limit, mount_mcp
from services.gateway.memory import context_router as context
from services.gateway.memory import router as memory
from services.gateway.memory import search_router as search
from services.gateway.models import router as model_settings
from services.gateway.openai_compat import router as openai_compat
from services.gateway.openai_compat.errors import OPENAI_ERRORS
from services.gateway.request_metrics import RequestMetrics
from services.gateway.schemas import ErrorResponse
from services.gateway.security_headers import add_security_headers
from shared.bus import create_broker, ensure_stream
from shared.config import GatewaySettings, InfraSettings, gateway_settings, infra_settings
from shared.db import create_pool
from shared.db.model_calls import database_sink
from shared.models.live import start_watching, stop_watching
from shared.scheduling import freeze_startup_heap
from shared.telemetry import setup_logging, setup_telemetry
from shared.usage import set_usage_sink

logger = logging.getLogger(__name__)
POOL_CLOSE_SECONDS = 5.0
# SSE streams end on shutdown by themselves; this bounds anything else a client holds open
GRACEFUL_SHUTDOWN_SECONDS = 5
# every route that takes an API key may answer 429 (fair_use/limits.py)
RATE_LIMITED: dict[int | str, dict[str, Any]] = {
    429: {
        "model": ErrorResponse,
        "description": "over a rate limit (see Retry-After) or the open-stream limit",
        "headers": {
            "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
        },
    }
}


def create_app(
    infra: InfraSettings | None = None, gateway: GatewaySettings | None = None
) -> FastAPI:
    infra = infra or infra_settings()
    if not infra.nats_url or not infra.database_url:
        raise SystemExit(
            "gateway: set ARTISAN_NATS_URL and ARTISAN_DATABASE_URL (or start with `artisan up`)"
        )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup_telemetry("gateway")
        hub = ProgressHub()
        # per-message logs at DEBUG: progress events are frequent and carry no news for operators
        # no echo: its own progress events reach its streams directly (GatewayProgress)
        broker = create_broker(infra.nats_url, log_level=logging.DEBUG, no_echo=True)
        pool = await create_pool(infra.database_url)
        set_usage_sink(database_sink(pool))
        await start_watching(pool, infra.database_url)  # the models saved in Settings
        await broker.start()
        await connect_hub(broker, hub)
        await ensure_stream(broker)
        progress = GatewayProgress(hub, broker)
        app.state.pool, app.state.broker, app.state.hub = pool, broker, hub
        app.state.progress = progress
        dispatcher = asyncio.create_task(Dispatcher(pool, progress, infra.database_url).run())
        try:
            async with serve_mcp():
                freeze_startup_heap()
                yield
        finally:
            dispatcher.cancel()
            hub.close()
            await stop_watching()
            await broker.stop()
            await _close_pool(pool)

    app = FastAPI(
        title="Artisan",
        summary="Durable, cited memory for AI assistants: upload files, follow their processing.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.gateway_settings = gateway or gateway_settings()
    app.state.fair_use = FairUse(app.state.gateway_settings)
    install_error_handlers(app, dialects=[OPENAI_ERRORS])
    keyed = (files, events, search, chat, personas, conversations, turns, journal, memory, context)
    for module in (*keyed, documents, model_settings, openai_compat):
        app.include_router(module.router, responses=RATE_LIMITED)
    for module in (health, metrics, formats, web):
        app.include_router(module.router)
    serve_mcp = mount_mcp(app)
    web.mount_static(app)
    app.add_middleware(BodyLimit, limit_for=body_limits(app.state.gateway_settings))
    app.add_middleware(RequestMetrics)  # outermost: a 413 is counted too (as unmatched)
    FastAPIInstrumentor.instrument_app(
        app, excluded_urls="healthz,readyz,metrics", server_request_hook=_without_query_string
    )
    add_security_headers(app)  # last: it wraps the whole stack, 500s included
    return app


def body_limits(settings: GatewaySettings) -> LimitFor:
    """Uploads stream under their own limits; an import may be large; any other body is small."""

    def limit_for(method: str, path: str) -> int | None:
        if method not in ("POST", "PUT", "PATCH"):
            return settings.max_body_bytes  # a GET or DELETE has no business sending a body
        if path == "/v1/files" or (method == "PUT" and path.startswith("/v1/files/")):
            return None  # an upload, or an update in place
        if path == "/v1/turns/import":
            return settings.max_import_body_bytes
        if path == MCP_PATH:  # an MCP upload brings its file inside the request, in base64
            return mcp_body_limit(settings)
        return settings.max_body_bytes

    return limit_for


# span attributes that carry the query string: a question (?q=) is the user's words, and a
# mistaken ?api_key= a secret; traces keep the path only
_URL_ATTRIBUTES = ("http.url", "url.full")


def _without_query_string(span: Span, scope: dict[str, Any]) -> None:
    if not span.is_recording() or not scope.get("query_string"):
        return
    attributes = getattr(span, "attributes", None) or {}
    for name in _URL_ATTRIBUTES:
        if isinstance(url := attributes.get(name), str):
            span.set_attribute(name, url.split("?", 1)[0])
    if "url.query" in attributes:
        span.set_attribute("url.query", "")


async def _close_pool(pool: asyncpg.Pool) -> None:
    try:
        await asyncio.wait_for(pool.close(), POOL_CLOSE_SECONDS)
    except TimeoutError:
        logger.warning(
            "database connections still busy after %ss; closing them", POOL_CLOSE_SECONDS
        )
        pool.terminate()


def main() -> None:
    setup_logging("gateway")
    settings = gateway_settings()
    uvicorn.run(
        create_app(),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )


if __name__ == "__main__":
    main()
