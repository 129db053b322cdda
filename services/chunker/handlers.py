"""file.extracted → classify + logical chunks → chunk.ready.strategic / chunk.ready.factual.
A new version of a file (an update) sends only the chunks that changed; the unchanged keep
their cuts and vectors."""

from collections.abc import Sequence
from uuid import UUID

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.chunker.chunks import plan_chunks
from services.chunker.reuse import known_types, match_unchanged
from services.chunker.small_files import finish_small_file, finishes_here
from shared.bus import publish_event
from shared.contracts import ChunkReady, Consumer, FileEmbedded, FileExtracted, Subject
from shared.db import chunks, files
from shared.db.chunks import NewChunk
from shared.domain import ChunkType, FileType
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
    if row is not None and row["live_version"] is not None:
        await chunk_new_version(event, text, file_type, row["version"], pool, broker)
        return
    planned = await plan_chunks(text, file_type, registry.chunker(), registry.classifier())
    if (
        row is not None
        and await finishes_here(planned, pool)
        and await finish_small_file(event, row["filename"], planned, pool, broker)
    ):
        return
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
    await announce(broker, row, publishing_next=True)
    await publish_chunks(broker, event, ids, planned)


async def chunk_new_version(
    event: FileExtracted,
    text: str,
    file_type: FileType,
    version: int,
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> None:
    """Chunk an update beside the live version: chunks whose text is unchanged are reused (no
    model call), only the others go down the pipeline."""
    live = await chunks.live_chunks(pool, file_id=event.file_id, version=version)
    planned = await plan_chunks(
        text, file_type, registry.chunker(), registry.classifier(), known_types(live)
    )
    reused = match_unchanged(planned, live)
    async with pool.acquire() as conn, conn.transaction():
        # first the file's row (locked, and still this attempt's), then its chunks
        row = await files.advance_stage(
            conn,
            file_id=event.file_id,
            attempt=event.attempt,
            stage="processing",
            total_chunks=len(planned),
            reused_chunks=len(reused),
        )
        if row is None:
            return
        ids = await chunks.save_version(
            conn,
            file_id=event.file_id,
            user_id=event.user_id,
            version=version,
            chunks=planned,
            reused=reused,
        )
        # the reused chunks are done already; when every chunk was reused, so is the file
        row = await files.record_chunk_done(conn, file_id=event.file_id, attempt=event.attempt)
    await announce(broker, row)
    if row is not None and row["processing_stage"] == "summarising":
        embedded = FileEmbedded(**event.model_dump(include={"file_id", "user_id", "attempt"}))
        await publish_event(broker, Subject.FILE_EMBEDDED, embedded)
        return
    changed = [(cid, c) for cid, c in zip(ids, planned, strict=True) if c.index not in reused]
    await publish_chunks(broker, event, [cid for cid, _ in changed], [c for _, c in changed])


async def publish_chunks(
    broker: NatsBroker, event: FileExtracted, ids: Sequence[UUID], planned: Sequence[NewChunk]
) -> None:
    # always (re)publish every chunk: a crash may have cut an earlier run short; ids de-duplicate
    for chunk_id, chunk in zip(ids, planned, strict=True):
        ready = ChunkReady(**event.model_dump(), chunk_id=chunk_id, chunk_index=chunk.index)
        await publish_event(broker, READY_SUBJECT[ChunkType(chunk.chunk_type)], ready)
