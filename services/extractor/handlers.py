"""file.uploaded → text extraction → file.extracted."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.extractor.child import extract_in_child
from shared.bus import publish_event
from shared.config import extraction_settings
from shared.contracts import Consumer, FileExtracted, FileUploaded, Subject
from shared.db import files
from shared.pipeline import announce, consumes

router = NatsRouter()


# parsing waits on a child process, so several files at once cost little and a file that runs
# to the time limit holds one slot, not the whole extractor
@consumes(
    router,
    Subject.FILE_UPLOADED,
    Consumer.EXTRACTOR,
    concurrency=extraction_settings().extract_concurrency,
)
async def extract_file(event: FileUploaded, pool: asyncpg.Pool, broker: NatsBroker) -> None:
    upload = await files.load_upload(pool, file_id=event.file_id)
    if upload is None:
        return
    filename, data = upload
    # parsing runs in a child process with a time and a memory limit, so a hostile file fails on
    # its own (an ExtractionError is permanent) while this process keeps serving the others
    text = await extract_in_child(data, filename, extraction_settings())
    async with pool.acquire() as conn:
        row = await files.store_text(conn, file_id=event.file_id, attempt=event.attempt, text=text)
    if row is None:
        return
    await announce(broker, row)
    await publish_event(broker, Subject.FILE_EXTRACTED, FileExtracted(**event.model_dump()))
