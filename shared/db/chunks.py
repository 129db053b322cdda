"""The file_chunks table: chunks are upserted by deterministic id, so redeliveries are no-ops."""

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg
import numpy as np

from shared.domain import ArtisanCut

Conn = asyncpg.Connection | asyncpg.Pool

CHUNK_COLUMNS = """id, file_id, user_id, chunk_index, chunk_type, title, char_start, char_end,
    line_start, line_end, text, summary, chunk_essence, decision_arc_summary, salience_score,
    embedding IS NOT NULL AS embedded"""


# a re-split chunk whose cut and vector no longer describe it
_CHANGED = (
    "(file_chunks.text, file_chunks.chunk_type, file_chunks.title)"
    " <> (EXCLUDED.text, EXCLUDED.chunk_type, EXCLUDED.title)"
)
_UPSERT_CHUNK = f"""
    INSERT INTO file_chunks (id, file_id, user_id, chunk_index, chunk_type, title,
                             char_start, char_end, line_start, line_end, text, summary,
                             version_from, searchable)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
    ON CONFLICT (id) DO UPDATE SET
        chunk_type = EXCLUDED.chunk_type, title = EXCLUDED.title,
        char_start = EXCLUDED.char_start, char_end = EXCLUDED.char_end,
        line_start = EXCLUDED.line_start, line_end = EXCLUDED.line_end,
        text = EXCLUDED.text, summary = EXCLUDED.summary,
        chunk_essence = CASE WHEN {_CHANGED} THEN NULL ELSE file_chunks.chunk_essence END,
        decision_arc_summary =
            CASE WHEN {_CHANGED} THEN NULL ELSE file_chunks.decision_arc_summary END,
        salience_score = CASE WHEN {_CHANGED} THEN NULL ELSE file_chunks.salience_score END,
        embedding = CASE WHEN {_CHANGED} THEN NULL ELSE file_chunks.embedding END"""


@dataclass(frozen=True)
class NewChunk:
    index: int
    chunk_type: str
    title: str
    char_start: int
    char_end: int
    line_start: int
    line_end: int
    text: str
    summary: str = ""


def chunk_id(file_id: UUID, index: int, version: int = 1) -> UUID:
    """Deterministic: the same file, version and position always give the same chunk id."""
    if version == 1:
        return uuid.uuid5(file_id, f"chunk:{index}")
    return uuid.uuid5(file_id, f"v{version}:chunk:{index}")


def chunk_row(
    cid: UUID, file_id: UUID, user_id: UUID, c: NewChunk, version: int, searchable: bool
) -> tuple[object, ...]:
    return (
        cid,
        file_id,
        user_id,
        c.index,
        c.chunk_type,
        c.title,
        c.char_start,
        c.char_end,
        c.line_start,
        c.line_end,
        c.text,
        c.summary or None,
        version,
        searchable,
    )


async def save_chunks(
    conn: asyncpg.Connection, *, file_id: UUID, user_id: UUID, chunks: Sequence[NewChunk]
) -> list[UUID]:
    """Upsert a file's chunks and drop any beyond them; returns their ids in order.

    A re-run that cut a chunk differently (a redelivery under a non-deterministic model) clears
    that chunk's cut and vector, so it is compressed and embedded again instead of keeping
    those of the text it no longer holds.
    """
    ids = [chunk_id(file_id, c.index) for c in chunks]
    await conn.executemany(
        _UPSERT_CHUNK,
        [chunk_row(cid, file_id, user_id, c, 1, True) for cid, c in zip(ids, chunks, strict=True)],
    )
    await drop_chunks_beyond(conn, file_id=file_id, count=len(chunks))
    return ids


async def drop_chunks_beyond(conn: asyncpg.Connection, *, file_id: UUID, count: int) -> None:
    """Delete the file's chunks past its first `count` (an earlier run cut it into more)."""
    await conn.execute(
        "DELETE FROM file_chunks WHERE file_id = $1 AND chunk_index >= $2", file_id, count
    )


async def get_chunk(
    conn: Conn, *, user_id: UUID, file_id: UUID, chunk_id: UUID
) -> asyncpg.Record | None:
    """The chunk, only when it belongs to the file and the user its event names."""
    return await conn.fetchrow(
        f"SELECT {CHUNK_COLUMNS} FROM file_chunks WHERE id = $1 AND file_id = $2 AND user_id = $3",
        chunk_id,
        file_id,
        user_id,
    )


async def list_chunks(conn: Conn, *, user_id: UUID, file_id: UUID) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT {CHUNK_COLUMNS} FROM file_chunks WHERE file_id = $1 AND user_id = $2"
        " AND searchable ORDER BY chunk_index",
        file_id,
        user_id,
    )


async def store_artisan_cut(conn: Conn, *, chunk_id: UUID, text: str, cut: ArtisanCut) -> None:
    """Store the cut of `text`; nothing when a re-split changed the chunk meanwhile."""
    await conn.execute(
        """UPDATE file_chunks SET chunk_essence = $2, decision_arc_summary = $3,
               salience_score = $4
           WHERE id = $1 AND text = $5""",
        chunk_id,
        cut.chunk_essence,
        cut.decision_arc_summary,
        cut.salience_score,
        text,
    )


async def store_embedding(
    conn: Conn, *, chunk_id: UUID, text: str, embedding: Sequence[float]
) -> bool:
    """Store the vector of the chunk holding `text`; False when a re-split changed it."""
    updated = await conn.fetchval(
        "UPDATE file_chunks SET embedding = $2 WHERE id = $1 AND text = $3 RETURNING id",
        chunk_id,
        np.asarray(embedding, dtype=np.float32),
        text,
    )
    return updated is not None


async def summary_sections(conn: Conn, *, file_id: UUID) -> list[tuple[str, str, str]]:
    """(title, summary, text) of every chunk of the newest version in document order, for the
    whole-file summary."""
    rows = await conn.fetch(
        "SELECT title, coalesce(pending->>'summary', summary, chunk_essence, left(text, 300))"
        " AS summary, text FROM file_chunks WHERE file_id = $1 AND version_to IS NULL"
        " ORDER BY coalesce((pending->>'chunk_index')::int, chunk_index)",
        file_id,
    )
    return [(row["title"], row["summary"], row["text"]) for row in rows]


async def chunks_of_files(conn: Conn, *, file_ids: list[UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT {CHUNK_COLUMNS} FROM file_chunks WHERE file_id = ANY($1::uuid[])"
        " AND version_to IS NULL ORDER BY file_id, chunk_index",
        file_ids,
    )


async def live_chunks(conn: Conn, *, file_id: UUID, version: int) -> list[asyncpg.Record]:
    """The live version's chunks in order, for the new `version` to match against (including
    those an earlier run of the same version marked as replaced: a redelivery matches again)."""
    return await conn.fetch(
        "SELECT id, chunk_type, title, text FROM file_chunks WHERE file_id = $1 AND searchable"
        " AND (version_to IS NULL OR version_to = $2) ORDER BY chunk_index",
        file_id,
        version,
    )


async def save_version(
    conn: asyncpg.Connection,
    *,
    file_id: UUID,
    user_id: UUID,
    version: int,
    chunks: Sequence[NewChunk],
    reused: Mapping[int, UUID],
) -> list[UUID]:
    """Store a new version's chunks beside the live ones (in the caller's transaction, after
    the file's row is locked). A reused chunk (`reused`: planned index → the live chunk with
    the same text) keeps its row, id, cut and vector, and only learns its place in the new
    version; the others are new rows, out of search until the version goes live. Live chunks
    not reused are marked as replaced by this version. Returns every chunk's id in order."""
    # undo what an earlier run of this version marked: this run's match replaces it
    await conn.execute(
        "UPDATE file_chunks SET version_to = NULL WHERE file_id = $1 AND version_to = $2",
        file_id,
        version,
    )
    await conn.execute(
        "UPDATE file_chunks SET pending = NULL WHERE file_id = $1 AND pending IS NOT NULL", file_id
    )
    ids = [reused.get(c.index) or chunk_id(file_id, c.index, version) for c in chunks]
    await conn.executemany(
        "UPDATE file_chunks SET pending = $2::jsonb WHERE id = $1",
        [(reused[c.index], json.dumps(_place(c))) for c in chunks if c.index in reused],
    )
    await conn.executemany(
        _UPSERT_CHUNK,
        [
            chunk_row(cid, file_id, user_id, c, version, False)
            for cid, c in zip(ids, chunks, strict=True)
            if c.index not in reused
        ],
    )
    # a new chunk an earlier run of this version planned and this one did not
    await conn.execute(
        "DELETE FROM file_chunks WHERE file_id = $1 AND version_from = $2 AND NOT searchable"
        " AND id <> ALL($3::uuid[])",
        file_id,
        version,
        ids,
    )
    await conn.execute(
        "UPDATE file_chunks SET version_to = $2"
        " WHERE file_id = $1 AND searchable AND version_to IS NULL AND id <> ALL($3::uuid[])",
        file_id,
        version,
        ids,
    )
    return ids


def _place(c: NewChunk) -> dict[str, object]:
    return {
        "chunk_index": c.index,
        "char_start": c.char_start,
        "char_end": c.char_end,
        "line_start": c.line_start,
        "line_end": c.line_end,
        "summary": c.summary or None,
    }


async def switch_version(conn: asyncpg.Connection, *, file_id: UUID, version: int) -> None:
    """The built version goes live (inside the caller's transaction, which commits it with the
    file's status, so a redelivery finds nothing left to do): the chunks it replaced are
    deleted, with their cuts, vectors and index terms; its shared chunks take their new places;
    its new chunks enter search; the older versions' bytes and text are deleted.

    A turn that cited a replaced chunk keeps what it showed: its citations hold the file, the
    section, the lines and the quoted words (superjournal.citations), and no reader resolves an
    old chunk (GET /v1/files/{id}/chunks lists the live version's). Keeping those rows kept
    every version of the file, and whatever the user had removed from it, forever."""
    await delete_replaced(conn, file_id=file_id, version=version)
    await conn.execute(
        """UPDATE file_chunks SET chunk_index = (pending->>'chunk_index')::int,
               char_start = (pending->>'char_start')::int,
               char_end = (pending->>'char_end')::int,
               line_start = (pending->>'line_start')::int,
               line_end = (pending->>'line_end')::int,
               summary = pending->>'summary', pending = NULL
           WHERE file_id = $1 AND pending IS NOT NULL""",
        file_id,
    )
    await conn.execute(
        "UPDATE file_chunks SET searchable = true"
        " WHERE file_id = $1 AND version_from = $2 AND NOT searchable",
        file_id,
        version,
    )
    await conn.execute(
        "DELETE FROM file_contents WHERE file_id = $1 AND version < $2", file_id, version
    )


async def delete_replaced(conn: asyncpg.Connection, *, file_id: UUID, version: int) -> None:
    """Delete the chunks of versions before `version` that it does not share (chunk_terms
    follow by cascade); those an older build left marked are caught up here too."""
    await conn.execute(
        "DELETE FROM file_chunks WHERE file_id = $1 AND version_to <= $2", file_id, version
    )
