"""`artisan reembed`: re-embed every stored chunk and journal turn with the configured embedder
(the one saved in Settings, else the environment's), through the bus."""

from dataclasses import dataclass

import asyncpg

from shared.bus import create_broker, ensure_stream
from shared.models.live import load_saved_models
from shared.providers import registry
from shared.reembedding import queue_reembedding as queue
from shared.reembedding import reopen_for_space


@dataclass(frozen=True)
class ReembedPlan:
    files: int
    chunks: int
    model: str
    dimension: int
    turns: int = 0


async def queue_reembedding(database_url: str, nats_url: str) -> ReembedPlan:
    """Clear every vector, switch the schema to the embedder's space, and queue every chunk."""
    conn = await asyncpg.connect(database_url)
    broker = create_broker(nats_url)
    await broker.start()
    try:
        await ensure_stream(broker)
        await load_saved_models(conn)
        embedder = registry.embedder()
        async with conn.transaction():
            work = await reopen_for_space(conn, model=embedder.model, dimension=embedder.dimension)
        await queue(broker, work)
    finally:
        await broker.stop()
        await conn.close()
    return ReembedPlan(
        len(work.files), len(work.chunks), embedder.model, embedder.dimension, len(work.turns)
    )


async def files_in_progress(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        return await conn.fetchval("SELECT count(*) FROM files WHERE status = 'processing'")
    finally:
        await conn.close()
