"""What every pipeline step shares: bounded retries that end in a failed file, progress fan-out."""

import logging
from collections.abc import Awaitable, Mapping
from typing import Any

import asyncpg
from faststream.exceptions import NackMessage
from faststream.nats import NatsBroker, NatsMessage

from shared.bus import publish_progress
from shared.config import pipeline_settings
from shared.contracts import FileEvent
from shared.db import files
from shared.progress import progress_event

logger = logging.getLogger(__name__)


class PermanentError(Exception):
    """Retrying cannot help (bad input); the message says what the user can do."""


async def announce(broker: NatsBroker, row: Mapping[str, Any] | None) -> None:
    """Tell SSE clients about a committed files row (nothing when the step was stale)."""
    if row is not None:
        await publish_progress(broker, row["user_id"], progress_event(row))


async def fail_file(pool: asyncpg.Pool, broker: NatsBroker, event: FileEvent, reason: str) -> None:
    row = await files.mark_failed(pool, file_id=event.file_id, attempt=event.attempt, reason=reason)
    await announce(broker, row)


async def run_step(
    step: Awaitable[None],
    *,
    event: FileEvent,
    msg: NatsMessage,
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> None:
    """Run a handler's work; retry transient errors, then fail the file with the reason."""
    try:
        await step
    except PermanentError as exc:
        await fail_file(pool, broker, event, str(exc))
    except Exception as exc:
        deliveries = msg.raw_message.metadata.num_delivered
        if deliveries < pipeline_settings().max_deliveries:
            logger.warning("delivery %d of %s failed: %r", deliveries, event.file_id, exc)
            raise NackMessage(delay=pipeline_settings().retry_delay_seconds * deliveries) from exc
        logger.exception("giving up on %s after %d deliveries", event.file_id, deliveries)
        await fail_file(pool, broker, event, f"{type(exc).__name__}: {exc}")
