"""The dead-letter path for messages whose deliveries ran out without an answer (crash loops).

A handler that raises marks its file failed on its last delivery itself (shared.pipeline). A
process that dies mid-message never gets to: JetStream then stops redelivering and publishes a
MAX_DELIVERIES advisory, which this router turns into a failed file (or a turn whose journaling
failed) with a reason.
"""

import json
import logging

import asyncpg
from faststream.nats import NatsBroker, NatsRouter
from faststream.nats.message import NatsMessage
from pydantic import BaseModel, ValidationError

from shared.bus import LoopContext
from shared.contracts import STREAM_NAME
from shared.metrics.pipeline import count_dead_letter
from shared.pipeline import work_from_message

logger = logging.getLogger(__name__)
MAX_DELIVERIES_ADVISORY = f"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{STREAM_NAME}.*"

router = NatsRouter()


class MaxDeliveriesAdvisory(BaseModel):
    stream: str
    consumer: str
    stream_seq: int
    deliveries: int


@router.subscriber(MAX_DELIVERIES_ADVISORY, queue="dead-letters")
async def on_max_deliveries(
    advisory: MaxDeliveriesAdvisory,
    msg: NatsMessage = LoopContext("message"),
    pool: asyncpg.Pool = LoopContext("pool"),
    broker: NatsBroker = LoopContext("broker"),
) -> None:
    count_dead_letter(advisory.consumer)
    stored = await broker.connection.jetstream().get_msg(advisory.stream, advisory.stream_seq)
    try:
        work = work_from_message(json.loads(stored.data or b"{}"))
    except (ValidationError, ValueError):
        logger.error("dead letter %s is not a file or turn event", advisory.stream_seq)
        return
    reason = (
        f"the {advisory.consumer} service stopped {advisory.deliveries} times while processing"
        f" this {work.kind}; retry it, and check that service's logs if it fails again"
    )
    logger.error("dead letter for %s: %s", work.describe(), reason)
    await work.fail(pool, broker, reason)
