"""chunk.ready.strategic → Artisan Cut (essence, decision arc, salience) → chunk.compressed."""

import asyncpg
from faststream import Context
from faststream.nats import NatsBroker, NatsMessage, NatsRouter

from shared.bus import publish_event, work_queue
from shared.contracts import ChunkCompressed, ChunkReady, Consumer, Subject
from shared.db import chunks, files
from shared.pipeline import run_step
from shared.providers import registry

router = NatsRouter()


@router.subscriber(Subject.CHUNK_READY_STRATEGIC, **work_queue(Consumer.COMPRESSOR))
async def on_chunk_ready_strategic(
    event: ChunkReady,
    msg: NatsMessage,
    pool: asyncpg.Pool = Context("pool"),
    broker: NatsBroker = Context("broker"),
) -> None:
    await run_step(
        compress_chunk(event, pool, broker), event=event, msg=msg, pool=pool, broker=broker
    )


async def compress_chunk(event: ChunkReady, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    if not await files.is_current_attempt(pool, file_id=event.file_id, attempt=event.attempt):
        return
    chunk = await chunks.get_chunk(pool, chunk_id=event.chunk_id)
    if chunk is None:
        return
    if (
        chunk["decision_arc_summary"] is None
    ):  # a redelivery after the cut was stored skips the model
        cut = await registry.compressor().compress(chunk["text"], chunk["title"])
        await chunks.store_artisan_cut(pool, chunk_id=event.chunk_id, cut=cut)
    await publish_event(broker, Subject.CHUNK_COMPRESSED, ChunkCompressed(**event.model_dump()))
