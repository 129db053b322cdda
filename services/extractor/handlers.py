"""file.uploaded → text extraction → file.extracted."""

import asyncio

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from services.extractor.child import extract_in_child
from services.extractor.extract import extract_text
from shared.bus import publish_event
from shared.config import ExtractionSettings, extraction_settings
from shared.contracts import Consumer, FileExtracted, FileUploaded, Subject
from shared.db import files
from shared.formats import extension_of
from shared.pipeline import announce, consumes
from shared.text.plain import PLAIN_TEXT_FORMATS

router = NatsRouter()
# plain text this small is read here: decoding it is linear and bounded (the charset detector
# reads at most 256 KB), and a child process would cost several times the work itself
IN_PROCESS_MAX_BYTES = 256 * 1024


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
    text = await read_text(data, filename, extraction_settings())
    row = await files.store_text(pool, file_id=event.file_id, attempt=event.attempt, text=text)
    if row is None:
        return
    await announce(broker, row, publishing_next=True)
    await publish_event(broker, Subject.FILE_EXTRACTED, FileExtracted(**event.model_dump()))


async def read_text(data: bytes, filename: str, limits: ExtractionSettings) -> str:
    """Small plain text in this process; everything else is parsed in a child process with a
    time and a memory limit, so a hostile file fails on its own (an ExtractionError is
    permanent) while this process keeps serving the others."""
    if len(data) <= IN_PROCESS_MAX_BYTES and extension_of(filename) in PLAIN_TEXT_FORMATS:
        return await asyncio.to_thread(extract_text, data, filename, limits)
    return await extract_in_child(data, filename, limits)
