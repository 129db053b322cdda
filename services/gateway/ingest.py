"""Storing validated uploads: each committed as a queued file, which the dispatcher hands to the
pipeline (services/gateway/dispatcher.py); a small UTF-8 note's text is read here and stored
with it, so its file skips the extractor."""

from collections.abc import Callable, Sequence
from uuid import UUID

import asyncpg
from opentelemetry import trace

from services.gateway.progress_hub import GatewayProgress
from services.gateway.schemas import FileRecord
from services.gateway.upload_stream import ReceivedFile
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
) -> list[FileRecord]:
    """Store each file (the same content again returns the existing record) and queue new ones."""
    records = []
    for upload in received:
        with tracer.start_as_current_span("gateway.store_upload") as span:
            span.set_attribute("artisan.file.size", upload.size)
            data = upload.read()
            async with pool.acquire() as conn:
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
            if not duplicate:
                await progress.announce(row)
        records.append(FileRecord.from_row(row, duplicate=duplicate))
    return records


def read_at_upload(filename: str, data: bytes) -> str | None:
    """The text of a small UTF-8 note, stored with its bytes so that it skips the extractor."""
    limit = extraction_settings().extract_max_text_chars
    return text_at_upload(filename, data, max_chars=limit)
