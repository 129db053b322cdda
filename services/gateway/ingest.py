"""Storing validated uploads and handing them to the pipeline."""

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from uuid import UUID

import asyncpg
from faststream.nats import NatsBroker
from opentelemetry import trace

from services.gateway.schemas import FileRecord
from services.gateway.upload_stream import ReceivedFile
from shared.bus import publish_event
from shared.contracts import FileUploaded, Subject
from shared.db import files
from shared.pipeline import announce

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


def queue_failed_message(file_id: UUID) -> str:
    return (
        "Could not queue the file for processing (the message bus was unavailable). "
        f"Retry it with POST /v1/files/{file_id}/retry."
    )


async def store_uploads(
    pool: asyncpg.Pool,
    broker: NatsBroker,
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
            async with pool.acquire() as conn:
                row, duplicate = await files.insert_file(
                    conn,
                    user_id=user_id,
                    filename=upload.filename,
                    media_type=media_type_for(upload.filename),
                    content_hash=upload.content_hash,
                    data=upload.read(),
                )
            span.set_attribute("artisan.file.id", str(row["id"]))
            span.set_attribute("artisan.file.duplicate", duplicate)
            if not duplicate:
                row = await queue_for_processing(pool, broker, row)
        records.append(FileRecord.from_row(row, duplicate=duplicate))
    return records


async def queue_for_processing(
    pool: asyncpg.Pool, broker: NatsBroker, row: Mapping[str, Any]
) -> Mapping[str, Any]:
    """Announce the row, then publish file.uploaded; if the bus fails, fail the file with a fix."""
    # announce first: the extractor cannot touch the file before file.uploaded is published, so
    # this upload-state event never arrives after a later stage's event (or a quick failure's)
    await _announce_quietly(broker, row)
    event = FileUploaded(file_id=row["id"], user_id=row["user_id"], attempt=row["attempt"])
    try:
        await publish_event(broker, Subject.FILE_UPLOADED, event)
    except Exception:
        logger.exception("could not publish file.uploaded for %s", row["id"])
        failed = await files.mark_failed(
            pool,
            file_id=row["id"],
            attempt=row["attempt"],
            reason=queue_failed_message(row["id"]),
        )
        if failed is None:  # someone else moved it on meanwhile; report what is true now
            return row
        await _announce_quietly(broker, failed)
        return failed
    return row


async def _announce_quietly(broker: NatsBroker, row: Mapping[str, Any]) -> None:
    """Progress events are a courtesy (the row is the truth); never fail a request over one."""
    try:
        await announce(broker, row)
    except Exception:
        logger.warning("could not announce progress of %s", row["id"], exc_info=True)
