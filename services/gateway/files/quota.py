"""The storage quota: an upload that would take a user's files past it is refused whole, after it
was received and before anything of it is stored. The check and the storing share a transaction
in which the user's uploads take turns, so uploads racing each other cannot pass together what
each would pass alone (the quota counts each file's newest version: docs/storage.md)."""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from uuid import UUID

import asyncpg

from services.gateway.files.upload_stream import ReceivedFile
from services.gateway.files.uploads import UploadRejected
from shared.db.storage import hold_storage, stored_bytes

_UNITS = (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024))


def format_size(num_bytes: int) -> str:
    for unit, size in _UNITS:
        if num_bytes >= size:
            return f"{num_bytes / size:.1f} {unit}"
    return f"{num_bytes} bytes"


def new_bytes(received: Sequence[ReceivedFile], present: set[str]) -> int:
    """What the upload adds: files the user already has, or sends twice, are stored once."""
    sizes = {file.content_hash: file.size for file in received if file.content_hash not in present}
    return sum(sizes.values())


@asynccontextmanager
async def storing(
    pool: asyncpg.Pool, *, user_id: UUID, quota_bytes: int
) -> AsyncIterator[asyncpg.Connection]:
    """The transaction to check an upload in (check_quota) and store it: under a quota, the
    user's other uploads wait until it commits or rolls back."""
    async with pool.acquire() as conn, conn.transaction():
        if quota_bytes:
            await hold_storage(conn, user_id=user_id)
        yield conn


async def check_quota(
    conn: asyncpg.Connection,
    *,
    user_id: UUID,
    quota_bytes: int,
    received: Sequence[ReceivedFile],
    replacing_bytes: int = 0,
) -> None:
    """UploadRejected (413) when the upload would pass the quota (0: none); it closes the files.
    An update counts what it adds over the `replacing_bytes` of the version it replaces. Exact
    only inside `storing`, before the upload is stored."""
    if not quota_bytes:
        return
    hashes = sorted({file.content_hash for file in received})
    used, present = await stored_bytes(conn, user_id=user_id, content_hashes=hashes)
    adding = new_bytes(received, present) - replacing_bytes
    if adding <= 0 or used + adding <= quota_bytes:
        return
    for file in received:
        file.close()
    raise UploadRejected(
        413,
        f"Storage quota reached: your files use {format_size(used)} of your"
        f" {format_size(quota_bytes)}, and this upload would add {format_size(adding)}."
        " Delete files you no longer need (GET /v1/files lists them with their sizes;"
        " DELETE /v1/files/{id} removes one), then upload again. Nothing was stored.",
    )
