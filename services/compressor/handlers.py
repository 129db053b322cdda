"""chunk.ready.strategic → Artisan Cut (essence, decision arc, salience) → chunk.compressed."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from shared.bus import publish_event
from shared.contracts import ChunkCompressed, ChunkReady, Consumer, Subject
from shared.db import chunks
from shared.pipeline import consumes
from shared.providers import registry

router = NatsRouter()


@consumes(router, Subject.CHUNK_READY_STRATEGIC, Consumer.COMPRESSOR)
async def compress_chunk(event: ChunkReady, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    chunk = await chunks.get_chunk(pool, chunk_id=event.chunk_id)
    if chunk is None:
        return
    # a redelivery after the cut was stored skips the model
    if chunk["decision_arc_summary"] is None:
        cut = await registry.compressor().compress(chunk["text"], chunk["title"])
        await chunks.store_artisan_cut(pool, chunk_id=event.chunk_id, cut=cut)
    await publish_event(broker, Subject.CHUNK_COMPRESSED, ChunkCompressed(**event.model_dump()))
