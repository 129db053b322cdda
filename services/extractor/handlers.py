"""file.uploaded → text extraction → file.extracted."""

import asyncio

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.extractor.errors import ExtractionError
from services.extractor.extract import extract_text
from shared.bus import publish_event
from shared.contracts import Consumer, FileExtracted, FileUploaded, Subject
from shared.db import files
from shared.errors import PermanentError
from shared.pipeline import announce, consumes

router = NatsRouter()


@consumes(router, Subject.FILE_UPLOADED, Consumer.EXTRACTOR)
async def extract_file(event: FileUploaded, pool: asyncpg.Pool, broker: NatsBroker) -> None:
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
