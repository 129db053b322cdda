"""chunk.compressed / chunk.ready.factual → embedding → progress; the last → file.embedded.
turn.compressed → the journal row embedded by its decision arc → the turn is journaled.
The messages a process holds at once share forward passes (shared.providers.batched_embedder)
and each is stored and acked on its own, so a retry redoes exactly one."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from shared.bus import publish_event
from shared.contracts import ChunkEvent, Consumer, FileEmbedded, Subject, TurnCompressed
from shared.db import chunks, files, journal, turns
from shared.db.embedding_space import require_space
from shared.domain import embedding_text
from shared.pipeline import announce, consumes
from shared.providers import registry
from shared.usage import record_held_calls

router = NatsRouter()
# messages one process holds at once: they wait together for one forward pass (or one remote
# request) of the batched embedder, so more slots make bigger batches, not more model work
EMBED_SLOTS = 16


def embedding_input(chunk: asyncpg.Record) -> str:
    return embedding_text(
        chunk["chunk_type"], chunk["title"], chunk["text"], chunk["decision_arc_summary"]
    )


@consumes(router, Subject.CHUNK_COMPRESSED, Consumer.EMBEDDER_COMPRESSED, EMBED_SLOTS)
@consumes(router, Subject.CHUNK_READY_FACTUAL, Consumer.EMBEDDER_FACTUAL, EMBED_SLOTS)
async def embed_chunk(event: ChunkEvent, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    chunk = await chunks.get_chunk(
        pool, user_id=event.user_id, file_id=event.file_id, chunk_id=event.chunk_id
    )
    if chunk is None:
        return
    embedder = registry.embedder()
    [vector] = await embedder.embed([embedding_input(chunk)])
    async with pool.acquire() as conn, conn.transaction():
        # the row lock makes concurrent embedders count in turn, so exactly one sees the last chunk
        if not await files.lock_for_update(conn, file_id=event.file_id, attempt=event.attempt):
            return
        await require_space(conn, model=embedder.model, dimension=embedder.dimension)
        await chunks.store_embedding(
            conn, chunk_id=event.chunk_id, text=chunk["text"], embedding=vector
        )
        row = await files.record_chunk_done(conn, file_id=event.file_id, attempt=event.attempt)
    await announce(broker, row)
    if row is not None and row["processing_stage"] == "summarising":
        embedded = FileEmbedded(**event.model_dump(include={"file_id", "user_id", "attempt"}))
        await publish_event(broker, Subject.FILE_EMBEDDED, embedded)


@consumes(router, Subject.TURN_COMPRESSED, Consumer.EMBEDDER_TURNS, EMBED_SLOTS)
async def embed_turn(event: TurnCompressed, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    entry = await journal.get_entry(pool, user_id=event.user_id, turn_id=event.turn_id)
    if entry is None:
        return
    embedder = registry.embedder()
    [vector] = await embedder.embed([entry["decision_arc_summary"]], input_type="document")
    await record_held_calls()  # before the turn is seen journaled
    async with pool.acquire() as conn, conn.transaction():
        await require_space(conn, model=embedder.model, dimension=embedder.dimension)
        if await journal.store_embedding(
            conn, user_id=event.user_id, turn_id=event.turn_id, embedding=vector
        ):
            await turns.mark_journaled(conn, user_id=event.user_id, turn_id=event.turn_id)
