"""Storing validated uploads: a request's files committed together, with the quota's check, as
queued files, which the dispatcher hands to the pipeline (dispatch/dispatcher.py); a
small UTF-8 note's text is read here and stored with it, so its file skips the extractor."""

from collections.abc import Callable, Sequence
from uuid import UUID

import asyncpg
from opentelemetry import trace

from services.gateway.dispatch.progress_hub import GatewayProgress
from services.gateway.files.quota import check_quota, storing
from services.gateway.files.schemas import FileRecord
from services.gateway.files.upload_stream import ReceivedFile
from shared.config import extraction_settings
from shared.db import files
from shared.telemetry import current_trace_context
from shared.text.plain import text_at_upload

tracer = trace.get_tracer(__name__)


async def store_uploads(
    pool: asyncpg.Pool,
    progress: GatewayProgress,
    *,
    user_id: UUID,
    received: Sequence[ReceivedFile],
    media_type_for: Callable[[str], str],
    quota_bytes: int,
) -> list[FileRecord]:
    """Store each file (the same content again returns the existing record) and queue new ones:
    all of them or, over the storage quota, none (UploadRejected)."""
    async with storing(pool, user_id=user_id, quota_bytes=quota_bytes) as conn:
        await check_quota(conn, user_id=user_id, quota_bytes=quota_bytes, received=received)
        stored = [await _store_upload(conn, user_id, upload, media_type_for) for upload in received]
    for row, duplicate in stored:
        if not duplicate:
            await progress.announce(row)
    return [FileRecord.from_row(row, duplicate=duplicate) for row, duplicate in stored]


async def _store_upload(
    conn: asyncpg.Connection,
    user_id: UUID,
    upload: ReceivedFile,
    media_type_for: Callable[[str], str],
) -> tuple[asyncpg.Record, bool]:
    with tracer.start_as_current_span("gateway.store_upload") as span:
        span.set_attribute("artisan.file.size", upload.size)
        data = upload.read()
        row, duplicate = await files.insert_file(
            conn,
            user_id=user_id,
            filename=upload.filename,
            media_type=media_type_for(upload.filename),
            content_hash=upload.content_hash,
            data=data,
            text=read_at_upload(upload.filename, data),
            trace_context=current_trace_context(),
        )
        span.set_attribute("artisan.file.id", str(row["id"]))
        span.set_attribute("artisan.file.duplicate", duplicate)
        return row, duplicate


def read_at_upload(filename: str, data: bytes) -> str | None:
    """The text of a small UTF-8 note, stored with its bytes so that it skips the extractor."""
    limit = extraction_settings().extract_max_text_chars
    return text_at_upload(filename, data, max_chars=limit)
