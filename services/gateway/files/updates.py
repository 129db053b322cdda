"""Updating a file in place (PUT /v1/files/{id}): the new bytes become a new version of the same
file, queued like an upload; the live version stays searched until the new one is ready."""

from uuid import UUID

import asyncpg
from fastapi import HTTPException
from opentelemetry import trace

from services.gateway.dispatch.progress_hub import GatewayProgress
from services.gateway.files.ingest import read_at_upload
from services.gateway.files.quota import check_quota, storing
from services.gateway.files.schemas import FileRecord
from services.gateway.files.upload_stream import ReceivedFile
from services.gateway.files.uploads import UploadRejected, extension_of
from shared.db import file_versions, files
from shared.telemetry import current_trace_context

tracer = trace.get_tracer(__name__)


async def store_update(
    pool: asyncpg.Pool,
    progress: GatewayProgress,
    *,
    current: asyncpg.Record,
    upload: ReceivedFile,
    quota_bytes: int,
) -> tuple[FileRecord, bool]:
    """Queue `upload` as the file's next version; (record, False) when it is the content the
    file already has (nothing to do). UploadRejected when it would pass the storage quota."""
    check_same_type(current["filename"], upload.filename)
    if upload.content_hash == current["content_hash"]:
        return FileRecord.from_row(current, duplicate=True), False
    check_updatable(current)
    with tracer.start_as_current_span("gateway.store_update") as span:
        span.set_attribute("artisan.file.id", str(current["id"]))
        span.set_attribute("artisan.file.size", upload.size)
        data = upload.read()
        user_id = current["user_id"]
        async with storing(pool, user_id=user_id, quota_bytes=quota_bytes) as conn:
            # what the update replaces, as it is now that the user's other uploads wait
            latest = await files.get_file(conn, user_id=user_id, file_id=current["id"])
            check_updatable(latest)
            await check_quota(
                conn,
                user_id=user_id,
                quota_bytes=quota_bytes,
                received=[upload],
                replacing_bytes=latest["size"],
            )
            row = await _begin_update(conn, latest, upload, data)
        span.set_attribute("artisan.file.version", row["version"])
    await progress.announce(row)
    return FileRecord.from_row(row), True


async def _begin_update(
    conn: asyncpg.Connection, current: asyncpg.Record, upload: ReceivedFile, data: bytes
) -> asyncpg.Record:
    try:
        row = await file_versions.begin_update(
            conn,
            user_id=current["user_id"],
            file_id=current["id"],
            content_hash=upload.content_hash,
            data=data,
            text=read_at_upload(upload.filename, data),
            trace_context=current_trace_context(),
        )
    except asyncpg.UniqueViolationError:
        message = await _same_content(conn, current["user_id"], upload.content_hash)
        raise HTTPException(409, message) from None
    if row is None:  # another request changed the file first
        check_updatable(
            await files.get_file(conn, user_id=current["user_id"], file_id=current["id"])
        )
        raise HTTPException(409, "The file changed meanwhile; send the update again.")
    return row


def check_same_type(stored_name: str, uploaded_name: str) -> None:
    """A version of a file is the same kind of file: its text is extracted the same way."""
    stored, uploaded = extension_of(stored_name), extension_of(uploaded_name)
    if stored != uploaded:
        raise UploadRejected(
            415,
            f"'{stored_name}' can only be updated with a {stored or 'file without an extension'}"
            f" file, not '{uploaded_name}'. Upload a different kind of file as a new file with"
            " POST /v1/files.",
        )


def check_updatable(row: asyncpg.Record | None) -> None:
    """409 unless the file is ready with no update in flight."""
    if row is None:
        raise HTTPException(
            409, "The file was deleted meanwhile; upload it again with POST /v1/files."
        )
    if row["live_version"] is None:
        raise HTTPException(
            409,
            f"'{row['filename']}' has no ready version to update (status: {row['status']}). "
            f"Delete it (DELETE /v1/files/{row['id']}) and upload the new content with"
            " POST /v1/files, or wait until it is ready.",
        )
    if row["status"] != "ready" or row["version"] != row["live_version"]:
        raise HTTPException(
            409,
            f"'{row['filename']}' is being processed (version {row['version']}, stage"
            f" {row['processing_stage']}); wait until it is ready (GET /v1/files/{row['id']}"
            "/events follows it), then send the update again.",
        )


async def _same_content(conn: asyncpg.Connection, user_id: UUID, content_hash: str) -> str:
    other = await file_versions.find_by_content(conn, user_id=user_id, content_hash=content_hash)
    name = f"'{other['filename']}' ({other['id']})" if other else "another of your files"
    return (
        f"{name} already has exactly this content; delete one of them, or update this file with"
        " different content."
    )
