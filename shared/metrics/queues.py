"""Queue depth: the messages each JetStream consumer of this process has waiting, refreshed every
few seconds (one consumer-info request per consumer, whatever the traffic)."""

import asyncio
import logging
from collections.abc import Iterable
from contextlib import suppress

from faststream.nats import NatsBroker
from prometheus_client import Gauge

from shared.contracts import STREAM_NAME

logger = logging.getLogger(__name__)
REFRESH_SECONDS = 5.0
INFO_TIMEOUT_SECONDS = 2.0

PENDING = Gauge(
    "artisan_consumer_pending_messages",
    "Messages on the stream not yet delivered to the consumer (its backlog)",
    ["consumer"],
)
ACK_PENDING = Gauge(
    "artisan_consumer_ack_pending_messages",
    "Messages delivered to the consumer's workers and not yet acknowledged (in progress)",
    ["consumer"],
)
REDELIVERED = Gauge(
    "artisan_consumer_redelivered_messages",
    "Messages delivered more than once and not yet acknowledged",
    ["consumer"],
)
_GAUGES = (PENDING, ACK_PENDING, REDELIVERED)


def durable_consumers(broker: NatsBroker) -> list[str]:
    """The durable consumers this process's subscribers joined (Consumer names)."""
    names = (getattr(getattr(s, "config", None), "durable_name", None) for s in broker.subscribers)
    return sorted({name for name in names if name})


async def refresh(broker: NatsBroker, consumers: Iterable[str]) -> None:
    """Read each consumer's counts; one that cannot be read loses its series (absent, not
    stale: an alert on the last value would believe a queue that is no longer watched)."""
    jetstream = broker.connection.jetstream()
    for consumer in consumers:
        try:
            info = await jetstream.consumer_info(
                STREAM_NAME, consumer, timeout=INFO_TIMEOUT_SECONDS
            )
        except Exception as exc:
            logger.debug("no queue depth for %s: %r", consumer, exc)
            for gauge in _GAUGES:
                with suppress(KeyError):  # older prometheus_client raises for an absent series
                    gauge.remove(consumer)
            continue
        PENDING.labels(consumer).set(info.num_pending or 0)
        ACK_PENDING.labels(consumer).set(info.num_ack_pending or 0)
        REDELIVERED.labels(consumer).set(info.num_redelivered or 0)


async def watch_queues(broker: NatsBroker, interval: float = REFRESH_SECONDS) -> None:
    """Refresh this process's consumers' depths until cancelled."""
    consumers = durable_consumers(broker)
    while True:
        try:
            await refresh(broker, consumers)
        except Exception:  # the bus is away, say: the next round tries again
            logger.warning("could not refresh the queue depths", exc_info=True)
        await asyncio.sleep(interval)
