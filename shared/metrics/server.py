"""A pipeline service's /metrics: its own small HTTP server beside the broker, and the queue
depth refresh, started and stopped with the FastStream app."""

import asyncio
import logging
from contextlib import suppress

from faststream import FastStream
from faststream.nats import NatsBroker
from prometheus_client import start_http_server

from shared.metrics.queues import watch_queues
from shared.metrics.settings import MetricsSettings

logger = logging.getLogger(__name__)


def serve_metrics(app: FastStream, broker: NatsBroker, settings: MetricsSettings) -> None:
    """Serve /metrics on settings.metrics_port (0: not at all) from the start, with the queue
    depths once the broker runs. A port in use costs the metrics, never the service: the work
    matters more than its numbers."""
    if not settings.metrics_port:
        return
    listening = False
    watcher: asyncio.Task[None] | None = None

    @app.on_startup
    async def listen() -> None:
        nonlocal listening
        try:
            start_http_server(settings.metrics_port, addr=settings.metrics_host)
        except OSError as exc:
            logger.warning(
                "no /metrics: cannot listen on %s:%s (%s)",
                settings.metrics_host,
                settings.metrics_port,
                exc,
            )
            return
        listening = True
        logger.info("metrics at http://%s:%s/metrics", settings.metrics_host, settings.metrics_port)

    @app.after_startup
    async def watch() -> None:  # the queues once the broker is connected
        nonlocal watcher
        if listening:
            watcher = asyncio.create_task(watch_queues(broker))

    @app.on_shutdown
    async def stop() -> None:
        if watcher is not None:
            watcher.cancel()
            with suppress(asyncio.CancelledError):
                await watcher
