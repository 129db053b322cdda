"""The model-heavy steps: Artisan Cut 2A + 2B of strategic chunks (chunk.ready.strategic →
chunk.compressed), the whole-file summary once every chunk is stored (file.embedded →
file.ready), and the cut and memory facts of each conversation turn (turn.completed →
turn.compressed)."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.compressor.turns import cut_turn, remembered_facts
from shared.bus import publish_event
from shared.contracts import (
    ChunkCompressed,
    ChunkReady,
    Consumer,
    FileEmbedded,
    Subject,
    TurnCompleted,
    TurnCompressed,
)
from shared.db import chunks, files, journal, memory_facts, turns
from shared.pipeline import announce_ready, consumes
from shared.providers import registry
from shared.usage import record_held_calls

router = NatsRouter()


@consumes(router, Subject.CHUNK_READY_STRATEGIC, Consumer.COMPRESSOR)
async def compress_chunk(event: ChunkReady, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    chunk = await chunks.get_chunk(
        pool, user_id=event.user_id, file_id=event.file_id, chunk_id=event.chunk_id
    )
    if chunk is None:
        return
    # a redelivery after the cut was stored skips the model
    if chunk["decision_arc_summary"] is None:
        text, title = chunk["text"], chunk["title"]
        draft = await registry.compressor().compress(text, title)
        cut = await registry.verifier().verify(text, title, draft)
        await chunks.store_artisan_cut(pool, chunk_id=event.chunk_id, text=text, cut=cut)
    await publish_event(broker, Subject.CHUNK_COMPRESSED, ChunkCompressed(**event.model_dump()))


@consumes(router, Subject.FILE_EMBEDDED, Consumer.SUMMARISER)
async def summarise_file(event: FileEmbedded, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    record = await files.get_file(pool, user_id=event.user_id, file_id=event.file_id)
    if record is None:
        return
    summary = record["summary"]  # kept by `artisan reembed`, which changes no text
    if summary is None or record["version"] != record["live_version"]:
        stored = await chunks.summary_sections(pool, file_id=event.file_id)
        summary = await registry.summariser().summarise_file(
            record["filename"],
            [(title, section) for title, section, _ in stored],
            texts=[text for _, _, text in stored],
        )
        await record_held_calls()  # before the file is seen ready
    row = await files.mark_ready(
        pool, file_id=event.file_id, attempt=event.attempt, summary=summary
    )
    await announce_ready(broker, event, row)


@consumes(router, Subject.TURN_COMPLETED, Consumer.COMPRESSOR_TURNS)
async def compress_turn(event: TurnCompleted, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    turn = await turns.get_turn(pool, user_id=event.user_id, turn_id=event.turn_id)
    if turn is None:
        return
    # a redelivery after the cut was stored skips the models
    if not await journal.has_cut(pool, user_id=event.user_id, turn_id=event.turn_id):
        cut = await cut_turn(turn)
        facts = await remembered_facts(turn, cut)
        async with pool.acquire() as conn, conn.transaction():
            await journal.upsert_cut(conn, turn=turn, cut=cut)
            await memory_facts.add_facts(
                conn,
                user_id=event.user_id,
                turn_id=event.turn_id,
                facts=facts,
                learned_at=turn["created_at"],
            )
    await publish_event(broker, Subject.TURN_COMPRESSED, TurnCompressed(**event.model_dump()))
