"""file.uploaded → text extraction → file.extracted."""

import asyncio

import asyncpg
from faststream import Context
from faststream.nats import NatsBroker, NatsMessage, NatsRouter

from shared.bus import publish_event, work_queue
from shared.contracts import Consumer, FileExtracted, FileUploaded, Subject
from shared.db import files
from shared.extraction import ExtractionError, extract_text
from shared.pipeline import PermanentError, announce, run_step

router = NatsRouter()


@router.subscriber(Subject.FILE_UPLOADED, **work_queue(Consumer.EXTRACTOR))
async def on_file_uploaded(
    event: FileUploaded,
    msg: NatsMessage,
    pool: asyncpg.Pool = Context("pool"),
    broker: NatsBroker = Context("broker"),
) -> None:
    await run_step(
        extract_file(event, pool, broker), event=event, msg=msg, pool=pool, broker=broker
    )


async def extract_file(event: FileUploaded, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    if not await files.is_current_attempt(pool, file_id=event.file_id, attempt=event.attempt):
        return
    upload = await files.load_upload(pool, file_id=event.file_id)
    if upload is None:
        return
    filename, data = upload
    try:
        # PDF and DOCX parsing is CPU work; keep the event loop free for acks and heartbeats
        text = await asyncio.to_thread(extract_text, data, filename)
    except ExtractionError as exc:
        raise PermanentError(str(exc)) from exc
    async with pool.acquire() as conn:
        row = await files.store_text(conn, file_id=event.file_id, attempt=event.attempt, text=text)
    if row is None:
        return
    await announce(broker, row)
    await publish_event(broker, Subject.FILE_EXTRACTED, FileExtracted(**event.model_dump()))
