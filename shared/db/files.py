"""The files table (and file_contents): every query is scoped by user, or by an event's attempt."""

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from uuid import UUID

import asyncpg

from shared.db import chunks
from shared.progress import STAGE_START, chunk_progress

Conn = asyncpg.Connection | asyncpg.Pool

FILE_COLUMNS = """id, user_id, filename, media_type, size, content_hash, file_type, status,
    processing_stage, progress, total_chunks, processed_chunks, error_message, attempt, summary,
    uploaded_at, updated_at, version, live_version, reused_chunks"""


async def insert_file(
    conn: Conn,
    *,
    user_id: UUID,
    filename: str,
    media_type: str,
    content_hash: str,
    data: bytes,
    text: str | None = None,
    trace_context: Mapping[str, str] | None = None,
) -> tuple[asyncpg.Record, bool]:
    """Store an upload (with its `text` when read at upload), queued for the dispatcher (its
    commit is the promise to process it); the same content from the same user returns the
    existing row (True). One statement: the row and its bytes commit together in one round trip
    (as a transaction, four), and the row's updated_at, the time its 'queued' event carries, is
    taken as they are stored (a transaction's BEGIN made the event look 100 ms late)."""
    row = await conn.fetchrow(
        f"""WITH new AS (
                INSERT INTO files (id, user_id, filename, media_type, size, content_hash,
                                   processing_stage, progress, trace_context, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, 'queued', {STAGE_START["queued"]}, $7::jsonb,
                        clock_timestamp())
                ON CONFLICT (user_id, content_hash) DO NOTHING
                RETURNING {FILE_COLUMNS}),
            stored AS (INSERT INTO file_contents (file_id, data, content_hash, text)
                       SELECT id, $8, content_hash, $9 FROM new)
            SELECT * FROM new""",
        uuid.uuid4(),
        user_id,
        filename,
        media_type,
        len(data),
        content_hash,
        json.dumps(dict(trace_context or {})),
        data,
        text,
    )
    if row is not None:
        return row, False
    existing = await conn.fetchrow(
        f"SELECT {FILE_COLUMNS} FROM files WHERE user_id = $1 AND content_hash = $2",
        user_id,
        content_hash,
    )
    return existing, True


async def get_file(conn: Conn, *, user_id: UUID, file_id: UUID) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {FILE_COLUMNS} FROM files WHERE id = $1 AND user_id = $2", file_id, user_id
    )


async def delete_file(conn: Conn, *, user_id: UUID, file_id: UUID) -> bool:
    """Delete a file; its contents and chunks go with it (ON DELETE CASCADE)."""
    deleted = await conn.fetchval(
        "DELETE FROM files WHERE id = $1 AND user_id = $2 RETURNING id", file_id, user_id
    )
    return deleted is not None


async def load_upload(conn: Conn, *, file_id: UUID) -> tuple[str, bytes] | None:
    """The name and bytes of the file's newest version (the one being processed)."""
    row = await conn.fetchrow(
        "SELECT f.filename, c.data FROM files f"
        " JOIN file_contents c ON c.file_id = f.id AND c.version = f.version"
        " WHERE f.id = $1",
        file_id,
    )
    return (row["filename"], bytes(row["data"])) if row else None


async def load_text(conn: Conn, *, user_id: UUID, file_id: UUID, live: bool = False) -> str | None:
    """The text of the version being processed, or (live) of the one search reads, which
    the live chunks' offsets point into. The owner is compared here, not in SQL: see
    is_current_attempt."""
    version = "coalesce(f.live_version, f.version)" if live else "f.version"
    row = await conn.fetchrow(
        "SELECT f.user_id, c.text FROM file_contents c"
        f" JOIN files f ON f.id = c.file_id AND c.version = {version}"
        " WHERE c.file_id = $1",
        file_id,
    )
    return row["text"] if row is not None and row["user_id"] == user_id else None


async def is_current_attempt(conn: Conn, *, user_id: UUID, file_id: UUID, attempt: int) -> bool:
    """False when the file was deleted, has finished, or was retried since the event was sent,
    and for an event naming another user than the file's owner, compared here: as `user_id =
    $3` in SQL, the planner may read all of the user's files for it (migration 0018)."""
    owner = await conn.fetchval(
        "SELECT user_id FROM files WHERE id = $1 AND attempt = $2 AND status = 'processing'",
        file_id,
        attempt,
    )
    return owner == user_id


async def store_text(
    conn: Conn, *, file_id: UUID, attempt: int, text: str
) -> asyncpg.Record | None:
    """Save the extracted text and move on to classification, in one statement (atomic by
    itself): as a transaction of two statements it took four round trips per file."""
    return await conn.fetchrow(
        f"""WITH moved AS ({_advance_sql({})}),
                stored AS (UPDATE file_contents c SET text = $5 FROM moved
                           WHERE c.file_id = moved.id AND c.version = moved.version)
            SELECT * FROM moved""",
        file_id,
        attempt,
        "classifying",
        STAGE_START["classifying"],
        text,
    )


async def advance_stage(
    conn: Conn, *, file_id: UUID, attempt: int, stage: str, **columns: object
) -> asyncpg.Record | None:
    """Enter a stage; a redelivered earlier step never moves progress or stage back.

    None when the event is stale (file deleted, finished or retried since).
    """
    return await conn.fetchrow(
        _advance_sql(columns), file_id, attempt, stage, STAGE_START[stage], *columns.values()
    )


def _advance_sql(columns: Mapping[str, object]) -> str:
    """advance_stage's statement: $1 file, $2 attempt, $3 stage, $4 its progress, $5… columns."""
    assignments = "".join(f", {name} = ${i}" for i, name in enumerate(columns, start=5))
    return f"""UPDATE files SET progress = GREATEST(progress, $4),
                processing_stage = CASE WHEN progress <= $4 THEN $3 ELSE processing_stage END,
                updated_at = clock_timestamp(){assignments}
            WHERE id = $1 AND attempt = $2 AND status = 'processing'
            RETURNING {FILE_COLUMNS}"""


async def record_chunk_done(
    conn: asyncpg.Connection, *, file_id: UUID, attempt: int
) -> asyncpg.Record | None:
    """Recount stored chunks (idempotent) and advance progress; the last one starts summarising.

    The caller holds the row lock (lock_for_update) so concurrent embedders count in turn.
    """
    return await conn.fetchrow(
        f"""WITH done AS (
                SELECT count(*) AS n FROM file_chunks
                WHERE file_id = $1 AND version_to IS NULL AND embedding IS NOT NULL)
            UPDATE files SET processed_chunks = done.n,
                   progress = GREATEST(progress, $3::int
                                       + ($4::int - $3::int) * done.n::int / total_chunks),
                   processing_stage = CASE WHEN done.n >= total_chunks THEN 'summarising'
                                           ELSE processing_stage END,
                   updated_at = clock_timestamp()
            FROM done
            WHERE id = $1 AND attempt = $2 AND status = 'processing'
            RETURNING {FILE_COLUMNS}""",
        file_id,
        attempt,
        chunk_progress(0, 1),
        chunk_progress(1, 1),
    )


async def mark_ready(
    conn: Conn, *, file_id: UUID, attempt: int, summary: str, chunk_count: int | None = None
) -> asyncpg.Record | None:
    """The file is complete: its whole-file summary is stored and it becomes ready. A new
    version goes live in the same transaction, so search reads either the old version or the
    new one, never a mix. A file finished in one step gives its `chunk_count`, all done."""
    async with in_transaction(conn) as tx:
        before = await tx.fetchrow(
            "SELECT version, live_version FROM files"
            " WHERE id = $1 AND attempt = $2 AND status = 'processing' FOR UPDATE",
            file_id,
            attempt,
        )
        if before is None:
            return None
        if before["live_version"] is not None and before["version"] > before["live_version"]:
            await chunks.switch_version(tx, file_id=file_id, version=before["version"])
        return await tx.fetchrow(
            f"""UPDATE files SET status = 'ready', processing_stage = 'ready', progress = 100,
                    summary = $3, live_version = version, error_message = NULL,
                    total_chunks = coalesce($4, total_chunks),
                    processed_chunks = coalesce($4, processed_chunks),
                    updated_at = clock_timestamp()
                WHERE id = $1 AND attempt = $2 AND status = 'processing'
                RETURNING {FILE_COLUMNS}""",
            file_id,
            attempt,
            summary,
            chunk_count,
        )


@asynccontextmanager
async def in_transaction(conn: Conn) -> AsyncIterator[asyncpg.Connection]:
    if isinstance(conn, asyncpg.Pool):
        async with conn.acquire() as acquired, acquired.transaction():
            yield acquired
    elif conn.is_in_transaction():
        # the caller's transaction, failing with it: a savepoint costs two more round trips
        yield conn
    else:
        async with conn.transaction():
            yield conn


async def lock_for_update(conn: asyncpg.Connection, *, file_id: UUID, attempt: int) -> bool:
    return bool(
        await conn.fetchval(
            "SELECT true FROM files WHERE id = $1 AND attempt = $2 AND status = 'processing'"
            " FOR UPDATE",
            file_id,
            attempt,
        )
    )


async def mark_failed(
    conn: Conn, *, file_id: UUID, attempt: int, reason: str
) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""UPDATE files SET status = 'failed', processing_stage = 'failed', error_message = $3,
                updated_at = clock_timestamp()
            WHERE id = $1 AND attempt = $2 AND status = 'processing'
            RETURNING {FILE_COLUMNS}""",
        file_id,
        attempt,
        reason,
    )


async def reset_for_retry(
    conn: asyncpg.Connection, *, user_id: UUID, file_id: UUID, quiet_seconds: float
) -> asyncpg.Record | None:
    """Start a file over as a new attempt, queued for the dispatcher: a failed one, or one whose
    processing has been quiet for quiet_seconds (stranded). None for any other file."""
    async with conn.transaction():
        row = await conn.fetchrow(
            f"""UPDATE files SET status = 'processing', processing_stage = 'queued',
                    progress = {STAGE_START["queued"]}, error_message = NULL,
                    total_chunks = 0, processed_chunks = 0, file_type = NULL,
                    summary = CASE WHEN live_version IS NULL THEN NULL ELSE summary END,
                    attempt = attempt + 1, redrives = 0, updated_at = clock_timestamp()
                WHERE id = $1 AND user_id = $2
                  AND (status = 'failed'
                       OR status = 'processing' AND processing_stage <> 'queued'
                          AND updated_at < clock_timestamp() - make_interval(secs => $3))
                RETURNING {FILE_COLUMNS}""",
            file_id,
            user_id,
            quiet_seconds,
        )
        # a stuck update keeps the live version's chunks (its re-run matches against them)
        if row is not None and row["live_version"] is None:
            await conn.execute("DELETE FROM file_chunks WHERE file_id = $1", file_id)
        return row


async def reopen_ready_files(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Every ready file goes back to the chunk stage as a new attempt (for re-embedding; the
    text, chunks, cuts and summary stay)."""
    return await conn.fetch(
        f"""UPDATE files SET status = 'processing', processing_stage = 'processing',
                progress = {STAGE_START["processing"]}, processed_chunks = 0,
                attempt = attempt + 1, updated_at = clock_timestamp()
            WHERE status = 'ready'
            RETURNING {FILE_COLUMNS}"""
    )
