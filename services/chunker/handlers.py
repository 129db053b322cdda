"""file.extracted → classify + logical chunks → chunk.ready.strategic / chunk.ready.factual."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.chunker.chunks import plan_chunks
from shared.bus import publish_event
from shared.contracts import ChunkReady, Consumer, FileExtracted, Subject
from shared.db import chunks, files
from shared.domain import ChunkType
from shared.pipeline import announce, consumes
from shared.providers import registry

router = NatsRouter()

READY_SUBJECT = {
    ChunkType.STRATEGIC: Subject.CHUNK_READY_STRATEGIC,
    ChunkType.FACTUAL: Subject.CHUNK_READY_FACTUAL,
}


@consumes(router, Subject.FILE_EXTRACTED, Consumer.CHUNKER)
async def chunk_file(event: FileExtracted, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    text = await files.load_text(pool, user_id=event.user_id, file_id=event.file_id)
    if text is None:
        return
    file_type = await registry.classifier().classify_file(text)
    row = await files.advance_stage(
        pool, file_id=event.file_id, attempt=event.attempt, stage="chunking", file_type=file_type
    )
    await announce(broker, row)
    planned = await plan_chunks(text, file_type, registry.chunker(), registry.classifier())
    async with pool.acquire() as conn, conn.transaction():
        ids = await chunks.save_chunks(
            conn, file_id=event.file_id, user_id=event.user_id, chunks=planned
        )
        row = await files.advance_stage(
            conn,
            file_id=event.file_id,
            attempt=event.attempt,
            stage="processing",
            total_chunks=len(planned),
        )
    if row is None:
        return
    await announce(broker, row)
    # always (re)publish every chunk: a crash may have cut an earlier run short; ids de-duplicate
    for chunk_id, chunk in zip(ids, planned, strict=True):
        ready = ChunkReady(**event.model_dump(), chunk_id=chunk_id, chunk_index=chunk.index)
        await publish_event(broker, READY_SUBJECT[ChunkType(chunk.chunk_type)], ready)
