"""Re-embedding everything stored with another embedder: every vector is cleared, the schema
switched to the new space, and every chunk and journal turn goes through the embedder again, on
the bus. `artisan reembed` and a change of embedder in Settings both come here."""

import time
from dataclasses import dataclass

import asyncpg
from faststream.nats import NatsBroker

from shared.bus import publish_event
from shared.config import ModelSettings, model_settings
from shared.contracts import ChunkEvent, Subject, TurnCompressed
from shared.db import chunks, files, turns
from shared.db.embedding_space import switch_space
from shared.models.hosts import ModelHostRefused, allowed_hosts, checked_host, endpoints_of
from shared.pipeline import announce


@dataclass(frozen=True)
class Reembedding:
    """What was reopened for the new space, to be queued once the transaction commits."""

    files: list[asyncpg.Record]
    chunks: list[asyncpg.Record]
    turns: list[asyncpg.Record]


def chunk_subject(chunk: asyncpg.Record) -> Subject:
    """Where a chunk re-enters the pipeline: compressed ones skip straight to the embedder."""
    if chunk["chunk_type"] == "factual":
        return Subject.CHUNK_READY_FACTUAL
    if chunk["decision_arc_summary"] is None:
        return Subject.CHUNK_READY_STRATEGIC
    return Subject.CHUNK_COMPRESSED


async def reopen_for_space(
    conn: asyncpg.Connection, *, model: str, dimension: int, settings: ModelSettings | None = None
) -> Reembedding:
    """Inside the caller's transaction: switch the space and reopen every ready file and
    journaled turn (their texts, cuts and summaries stay). Every text goes to the embedder of
    `settings` (default: the ones in use), so one the model-host rules refuse is not used."""
    refuse_unless_allowed(settings or model_settings())
    await switch_space(conn, model=model, dimension=dimension)
    reopened = await files.reopen_ready_files(conn)
    to_embed = await chunks.chunks_of_files(conn, file_ids=[row["id"] for row in reopened])
    return Reembedding(reopened, to_embed, await turns.reopen_journaled_turns(conn))


def refuse_unless_allowed(settings: ModelSettings) -> None:
    """Raises ModelHostRefused when the embeddings endpoint breaks the model-host rules: also
    one saved before the operator set ARTISAN_MODEL_HOSTS_ALLOWED (names resolve on save)."""
    url = endpoints_of(settings).get("embeddings")
    if url:
        try:
            checked_host(url, allowed_hosts(settings.model_hosts_allowed))
        except ModelHostRefused as refused:
            raise ModelHostRefused(f"Not re-embedding: the embeddings base URL {refused}") from None


async def queue_reembedding(broker: NatsBroker, work: Reembedding) -> None:
    """After the commit: tell the files' followers, and send every chunk and turn on its way."""
    for row in work.files:
        await announce(broker, row)
    attempts = {row["id"]: row["attempt"] for row in work.files}
    for chunk in work.chunks:
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
    for turn in work.turns:
        compressed = TurnCompressed(turn_id=turn["id"], user_id=turn["user_id"], attempt=attempt)
        await publish_event(broker, Subject.TURN_COMPRESSED, compressed)
