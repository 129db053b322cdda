"""A pipeline service process: broker + telemetry + /metrics + a database pool in the handlers'
context. It builds no model: an entry point that needs one at start passes a start-up check
(shared/models/startup.py)."""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

import asyncpg
from faststream import FastStream
from faststream.nats import NatsRouter

from shared.bus import create_broker
from shared.config import infra_settings
from shared.db import create_pool
from shared.db.model_calls import database_sink
from shared.dead_letters import router as dead_letters
from shared.errors import EXIT_REFUSED
from shared.metrics.server import serve_metrics
from shared.metrics.settings import metrics_settings
from shared.models.live import start_watching, stop_watching
from shared.scheduling import freeze_startup_heap, run_in_background
from shared.telemetry import setup_logging, setup_telemetry
from shared.usage import set_usage_sink

logger = logging.getLogger(__name__)


class RefusedToStart(Exception):
    """A start-up check found a configuration this service must not run with."""


StartupCheck = Callable[[asyncpg.Pool], Awaitable[None]]


def create_service(
    name: str, router: NatsRouter, startup_checks: Sequence[StartupCheck] = ()
) -> FastStream:
    """Wire a service: its router on a broker, a pool available to handlers as Context('pool')."""
    settings = infra_settings()
    if not settings.nats_url or not settings.database_url:
        raise SystemExit(
            f"{name}: set ARTISAN_NATS_URL and ARTISAN_DATABASE_URL (or start with `artisan up`)"
        )
    setup_logging(name)
    setup_telemetry(name)
    broker = create_broker(settings.nats_url, token=settings.nats_token)
    broker.include_router(router)
    broker.include_router(dead_letters)
    app = FastStream(broker)
    serve_metrics(app, broker, metrics_settings())

    @app.on_startup
    async def open_pool() -> None:
        pool = await create_pool(settings.database_url)
        app.context.set_global("pool", pool)
        set_usage_sink(database_sink(pool))
        # the models saved in Settings, before any check uses them, and every later save
        await start_watching(pool, settings.database_url)
        for check in startup_checks:
            await check(pool)
        freeze_startup_heap()

    @app.after_shutdown
    async def close_pool() -> None:
        await stop_watching()
        await app.context.get("pool").close()

    return app


def run_service(
    name: str,
    router: NatsRouter,
    startup_checks: Sequence[StartupCheck] = (),
    *,
    background: bool = False,
) -> None:
    """Run the service until it is stopped; `background` for batch work (ingestion), which then
    gives the CPU to the interactive paths first (shared/scheduling.py)."""
    if background:
        run_in_background()
    try:
        asyncio.run(create_service(name, router, startup_checks).run())
    except RefusedToStart as exc:
        logger.error("%s refused to start: %s", name, exc)
        raise SystemExit(EXIT_REFUSED) from exc
