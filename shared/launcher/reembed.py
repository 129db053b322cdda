"""`artisan reembed`: re-embed every stored chunk and journal turn with the configured embedder,
through the bus."""

import time
from dataclasses import dataclass

import asyncpg

from shared.bus import create_broker, ensure_stream, publish_event
from shared.contracts import ChunkEvent, Subject, TurnCompressed
from shared.db import chunks, files, turns
from shared.db.embedding_space import switch_space
from shared.pipeline import announce
from shared.providers import registry


@dataclass(frozen=True)
class ReembedPlan:
    files: int
    chunks: int
    model: str
    dimension: int
    turns: int = 0


def chunk_subject(chunk: asyncpg.Record) -> Subject:
    """Where a chunk re-enters the pipeline: compressed ones skip straight to the embedder."""
    if chunk["chunk_type"] == "factual":
        return Subject.CHUNK_READY_FACTUAL
    if chunk["decision_arc_summary"] is None:
        return Subject.CHUNK_READY_STRATEGIC
    return Subject.CHUNK_COMPRESSED


async def queue_reembedding(database_url: str, nats_url: str) -> ReembedPlan:
    """Clear every vector, switch the schema to the embedder's space, and queue every chunk."""
    embedder = registry.embedder()
    conn = await asyncpg.connect(database_url)
    broker = create_broker(nats_url)
    await broker.start()
    try:
        await ensure_stream(broker)
        async with conn.transaction():
            await switch_space(conn, model=embedder.model, dimension=embedder.dimension)
            reopened = await files.reopen_ready_files(conn)
            to_embed = await chunks.chunks_of_files(conn, file_ids=[row["id"] for row in reopened])
            journaled = await turns.reopen_journaled_turns(conn)
        for row in reopened:
            await announce(broker, row)
        attempts = {row["id"]: row["attempt"] for row in reopened}
        for chunk in to_embed:
            event = ChunkEvent(
                file_id=chunk["file_id"],
                user_id=chunk["user_id"],
                attempt=attempts[chunk["file_id"]],
                chunk_id=chunk["id"],
                chunk_index=chunk["chunk_index"],
            )
            await publish_event(broker, chunk_subject(chunk), event)
        # a new attempt number, so JetStream's de-duplication does not drop the re-run
        attempt = int(time.time())
        for turn in journaled:
            compressed = TurnCompressed(
                turn_id=turn["id"], user_id=turn["user_id"], attempt=attempt
            )
            await publish_event(broker, Subject.TURN_COMPRESSED, compressed)
    finally:
        await broker.stop()
        await conn.close()
    return ReembedPlan(
        len(reopened), len(to_embed), embedder.model, embedder.dimension, turns=len(journaled)
    )


async def files_in_progress(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        return await conn.fetchval("SELECT count(*) FROM files WHERE status = 'processing'")
    finally:
        await conn.close()
