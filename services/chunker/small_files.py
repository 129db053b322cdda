"""Small files finish here. When every model runs in this process, a file of a few chunks is
cut, embedded and summarised by the chunker and stored in one transaction: the three more hops
it would otherwise take (compressor, embedder, summariser) cost many times that CPU work.
Remote models keep every hop, where compressor workers scale out on the model's latency."""

import time
from collections.abc import Sequence

import asyncpg
from faststream.nats import NatsBroker

from shared.config import model_settings, pipeline_settings
from shared.contracts import FileExtracted
from shared.db import files
from shared.db.chunk_results import FinishedChunk, save_finished_chunks
from shared.db.chunks import NewChunk
from shared.db.embedding_space import space_is
from shared.domain import ArtisanCut, ChunkType, embedding_text
from shared.pipeline import announce_ready
from shared.providers import registry
from shared.usage import record_held_calls

# this process's embedding space, by when the stored vectors were last seen in it: a round trip
# per file spared. Only a hint: the storing transaction checks again, so a switch (`artisan
# reembed`) found late costs one more hop for the files in between, never a wrong vector.
_space_seen: dict[tuple[str, int], float] = {}
SPACE_RECHECK_SECONDS = 5.0


async def finishes_here(planned: Sequence[NewChunk], pool: asyncpg.Pool) -> bool:
    """Few chunks, every model in this process, and this process's embedder is the stored
    vectors' (after `artisan reembed` switched them, the restarted embedder service embeds)."""
    if len(planned) > pipeline_settings().inline_max_chunks:
        return False
    if not model_settings().all_in_process:
        return False
    embedder = registry.embedder()
    space = (embedder.model, embedder.dimension)
    if _space_seen.get(space, float("-inf")) > time.monotonic() - SPACE_RECHECK_SECONDS:
        return True
    async with pool.acquire() as conn:
        if not await space_is(conn, model=embedder.model, dimension=embedder.dimension):
            return False
    _space_seen[space] = time.monotonic()
    return True


async def finish_small_file(
    event: FileExtracted,
    filename: str,
    planned: Sequence[NewChunk],
    pool: asyncpg.Pool,
    broker: NatsBroker,
) -> bool:
    """Finish the file here; False when the embedding space was switched meanwhile."""
    cuts = [await _cut_of(chunk) for chunk in planned]
    embedder = registry.embedder()
    vectors = await embedder.embed(
        [
            embedding_text(c.chunk_type, c.title, c.text, cut.decision_arc_summary if cut else None)
            for c, cut in zip(planned, cuts, strict=True)
        ]
    )
    # the same sections the summariser reads from stored chunks (chunks.summary_sections)
    sections = [
        (c.title, c.summary or (cut.chunk_essence if cut is not None else c.text[:300]))
        for c, cut in zip(planned, cuts, strict=True)
    ]
    summary = await registry.summariser().summarise_file(
        filename, sections, texts=[c.text for c in planned]
    )
    await record_held_calls()  # before the file is seen ready
    async with pool.acquire() as conn, conn.transaction():
        if not await files.lock_for_update(conn, file_id=event.file_id, attempt=event.attempt):
            return True  # stale: deleted, finished or retried since
        if not await space_is(conn, model=embedder.model, dimension=embedder.dimension):
            _space_seen.pop((embedder.model, embedder.dimension), None)
            return False
        await save_finished_chunks(
            conn,
            file_id=event.file_id,
            user_id=event.user_id,
            finished=[
                FinishedChunk(chunk=c, embedding=vector, cut=cut)
                for c, vector, cut in zip(planned, vectors, cuts, strict=True)
            ],
        )
        row = await files.mark_ready(
            conn,
            file_id=event.file_id,
            attempt=event.attempt,
            summary=summary,
            chunk_count=len(planned),
        )
    await announce_ready(broker, event, row)
    return True


async def _cut_of(chunk: NewChunk) -> ArtisanCut | None:
    """The Artisan Cut of a strategic chunk, by the same two calls the compressor makes."""
    if chunk.chunk_type != ChunkType.STRATEGIC:
        return None
    draft = await registry.compressor().compress(chunk.text, chunk.title)
    return await registry.verifier().verify(chunk.text, chunk.title, draft)
