"""Whether a failed step met an outage of the database or the bus, and waiting it out: an
outage is nobody's file's fault, so it must not spend the file's deliveries."""

import asyncio

import asyncpg
from faststream.nats import NatsBroker
from nats import errors as nats_errors
from nats.js import errors as jetstream_errors

from shared.contracts import STREAM_NAME

# errors that say the database or the bus went away, not that the work is wrong (a bare
# ConnectionError may be a model endpoint's: for those, a probe of both decides)
OUTAGE_ERRORS = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.OperatorInterventionError,  # the server is shutting down or restarting
    nats_errors.ConnectionClosedError,
    nats_errors.ConnectionReconnectingError,
    nats_errors.NoServersError,
    nats_errors.TimeoutError,
    nats_errors.StaleConnectionError,
    # a replicated stream between leaders (its server died): no answer until one is elected
    jetstream_errors.NoStreamResponseError,
    jetstream_errors.ServiceUnavailableError,
)
PROBE_TIMEOUT_SECONDS = 5.0
MAX_PROBE_PAUSE_SECONDS = 5.0


async def is_outage(exc: Exception, pool: asyncpg.Pool, broker: NatsBroker) -> bool:
    """The step failed because the database or the bus is (or just was) unreachable."""
    return isinstance(exc, OUTAGE_ERRORS) or not await _reachable(pool, broker)


async def _reachable(pool: asyncpg.Pool, broker: NatsBroker) -> bool:
    if not broker.connection.is_connected:
        return False
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
            await pool.fetchval("SELECT 1")
            # answered by the stream's leader, so not while a cluster elects a new one
            await broker.connection.jetstream().stream_info(STREAM_NAME)
    except Exception:
        return False
    return True


async def wait_for_infrastructure(pool: asyncpg.Pool, broker: NatsBroker) -> None:
    """Return once both answer again, probing with a growing pause (forever: the supervisor or
    the operator brings them back, and the work must not be lost meanwhile)."""
    pause = 0.2
    while not await _reachable(pool, broker):
        await asyncio.sleep(pause)
        pause = min(pause * 2, MAX_PROBE_PAUSE_SECONDS)
