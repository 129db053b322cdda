"""Where unfinished files wait, for a test's failure message: their stages and every durable
consumer's counts."""

import asyncpg
from nats.js import JetStreamContext

from shared.contracts import STREAM_NAME


async def where_stuck(db: asyncpg.Pool, ids: list[str], jetstream: JetStreamContext) -> str:
    """The unfinished files' stages and every consumer's counts: where the work waits."""
    stages = await db.fetch(
        "SELECT processing_stage, count(*) AS n FROM files"
        " WHERE id::text = ANY($1) AND status <> 'ready' GROUP BY 1",
        ids,
    )
    infos = await jetstream.consumers_info(STREAM_NAME)
    counts = {i.name: (i.num_pending, i.num_ack_pending, i.num_redelivered) for i in infos}
    return f"stages {dict(stages)}; consumers (pending, ack pending, redelivered) {counts}"
