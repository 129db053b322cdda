"""A file's versions: PUT /v1/files/{id} queues new bytes as the next version of the same file
(the versions' chunks are in shared/db/chunks.py; the switch in files.mark_ready; a failed update
is rolled back by a trigger, infra/migrations/0013_file_versions.sql)."""

import json
from collections.abc import Mapping
from uuid import UUID

import asyncpg

from shared.db.files import FILE_COLUMNS, Conn
from shared.progress import STAGE_START


async def begin_update(
    conn: asyncpg.Connection,
    *,
    user_id: UUID,
    file_id: UUID,
    content_hash: str,
    data: bytes,
    text: str | None = None,
    trace_context: Mapping[str, str] | None = None,
) -> asyncpg.Record | None:
    """Queue a new version of a ready file (with its `text` when read at upload) for the
    dispatcher; its live version stays searched until the new one is ready. None when the file
    is not ready (being processed, or never was ready). asyncpg.UniqueViolationError when
    another of the user's files has this content."""
    async with conn.transaction():
        row = await conn.fetchrow(
            f"""UPDATE files SET version = version + 1, status = 'processing',
                    processing_stage = 'queued', progress = {STAGE_START["queued"]},
                    error_message = NULL, size = $3, content_hash = $4, attempt = attempt + 1,
                    redrives = 0, processed_chunks = 0, reused_chunks = 0,
                    trace_context = $5::jsonb, updated_at = clock_timestamp()
                WHERE id = $1 AND user_id = $2 AND status = 'ready' AND live_version = version
                RETURNING {FILE_COLUMNS}""",
            file_id,
            user_id,
            len(data),
            content_hash,
            json.dumps(dict(trace_context or {})),
        )
        if row is not None:
            await conn.execute(
                """INSERT INTO file_contents (file_id, version, data, content_hash, text)
                   VALUES ($1, $2, $3, $4, $5)
                   ON CONFLICT (file_id, version) DO UPDATE
                   SET data = EXCLUDED.data, content_hash = EXCLUDED.content_hash,
                       text = EXCLUDED.text""",
                file_id,
                row["version"],
                data,
                content_hash,
                text,
            )
        return row


async def find_by_content(conn: Conn, *, user_id: UUID, content_hash: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {FILE_COLUMNS} FROM files WHERE user_id = $1 AND content_hash = $2",
        user_id,
        content_hash,
    )
