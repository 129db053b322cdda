"""The storage quota: an upload that would take a user's files past it is refused whole, after it
was received and before anything of it is stored. Two uploads checked at the same moment may each
fit alone and pass together: the quota is a fair-use bound, not an exact ledger."""

from collections.abc import Sequence
from uuid import UUID

import asyncpg

from services.gateway.upload_stream import ReceivedFile
from services.gateway.uploads import UploadRejected
from shared.db.storage import stored_bytes

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


async def check_quota(
    pool: asyncpg.Pool,
    *,
    user_id: UUID,
    quota_bytes: int,
    received: Sequence[ReceivedFile],
    replacing_bytes: int = 0,
) -> None:
    """UploadRejected (413) when the upload would pass the quota (0: none); it closes the files.
    An update counts what it adds over the `replacing_bytes` of the version it replaces."""
    if not quota_bytes:
        return
    hashes = sorted({file.content_hash for file in received})
    used, present = await stored_bytes(pool, user_id=user_id, content_hashes=hashes)
    adding = new_bytes(received, present) - replacing_bytes
    if adding == 0 or used + adding <= quota_bytes:
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
