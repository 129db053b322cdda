"""/v1/files: upload, list, inspect, delete and retry files."""

from typing import Annotated
from uuid import UUID

import asyncpg
from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import PlainTextResponse

from services.gateway.auth import CurrentUser, ExpensiveUser
from services.gateway.deps import FILE_NOT_FOUND, FileId, Pool, Progress, Settings
from services.gateway.dispatch.settings import dispatch_settings
from services.gateway.files.ingest import store_uploads
from services.gateway.files.schemas import (
    ChunkList,
    ChunkRecord,
    FileList,
    FilePage,
    FileRecord,
    FileStatus,
    ModelCallList,
)
from services.gateway.files.updates import store_update
from services.gateway.files.upload_stream import UploadLimits, receive_files
from services.gateway.paging import DEFAULT_LIMIT, INVALID_PAGE, Before, Limit
from services.gateway.schemas import ErrorResponse
from shared.db import chunks, file_lists, files, model_calls
from shared.formats import SUPPORTED_EXTENSIONS, media_type_for

router = APIRouter(prefix="/v1/files", tags=["files"])

_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}
_UPLOAD_ERRORS = {
    401: {"model": ErrorResponse},
    413: {
        "model": ErrorResponse,
        "description": "a file over the size limit, too many files, or over the storage quota",
    },
    415: {"model": ErrorResponse, "description": "an unsupported file type"},
    422: {"model": ErrorResponse, "description": "an empty file, or no files"},
}
# the body is parsed by hand (to enforce limits while it streams), so describe it for /docs
_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "one or more files: "
                            + ", ".join(sorted(SUPPORTED_EXTENSIONS)),
                        }
                    },
                }
            }
        },
    }
}


@router.post(
    "",
    status_code=202,
    response_model=FileList,
    responses=_UPLOAD_ERRORS,
    openapi_extra=_UPLOAD_BODY,
)
async def upload_files(
    request: Request, user: ExpensiveUser, pool: Pool, progress: Progress, settings: Settings
) -> FileList:
    """Upload files, validated before any is stored; a re-upload returns the existing file."""
    limits = UploadLimits(
        max_file_bytes=settings.max_upload_bytes,
        max_files=settings.max_files_per_upload,
        supported_extensions=SUPPORTED_EXTENSIONS,
    )
    received = await receive_files(request, limits)
    try:
        records = await store_uploads(
            pool,
            progress,
            user_id=user.id,
            received=received,
            media_type_for=media_type_for,
            quota_bytes=settings.storage_quota_bytes,
        )
    finally:
        for upload in received:
            upload.close()
    return FileList(items=records)


@router.put(
    "/{file_id}",
    status_code=202,
    response_model=FileRecord,
    responses={
        **_UPLOAD_ERRORS,
        200: {"model": FileRecord, "description": "the same content: nothing to update"},
        404: {"model": ErrorResponse},
        409: {"model": ErrorResponse, "description": "an update already in flight"},
    },
    openapi_extra=_UPLOAD_BODY,
)
async def update_file(
    file_id: FileId,
    request: Request,
    response: Response,
    user: ExpensiveUser,
    pool: Pool,
    progress: Progress,
    settings: Settings,
) -> FileRecord:
    """Replace the file's content, keeping its id: unchanged chunks keep their cuts and vectors,
    and the previous version stays searched until the new one is ready (a failed update
    leaves it as it was)."""
    current = await _owned_file(pool, user.id, file_id)
    limits = UploadLimits(
        max_file_bytes=settings.max_upload_bytes,
        max_files=1,
        supported_extensions=SUPPORTED_EXTENSIONS,
    )
    [received] = await receive_files(request, limits)
    try:
        record, queued = await store_update(
            pool,
            progress,
            current=current,
            upload=received,
            quota_bytes=settings.storage_quota_bytes,
        )
    finally:
        received.close()
    if not queued:
        response.status_code = 200
    return record


@router.get("", response_model=FilePage, responses=_ERRORS | INVALID_PAGE)
async def list_files(
    user: CurrentUser,
    pool: Pool,
    before: Before,
    limit: Limit = DEFAULT_LIMIT,
    status: Annotated[FileStatus | None, Query(description="only files in this status")] = None,
) -> FilePage:
    """Your files, newest first, a page at a time: follow `next` (as `before`) for the rest."""
    page = await file_lists.list_files(
        pool, user_id=user.id, limit=limit, before=before, status=status
    )
    return FilePage(items=[FileRecord.from_row(row) for row in page.items], next=page.next)


@router.get("/{file_id}", response_model=FileRecord, responses=_ERRORS)
async def get_file(file_id: FileId, user: CurrentUser, pool: Pool) -> FileRecord:
    return FileRecord.from_row(await _owned_file(pool, user.id, file_id))


@router.get("/{file_id}/chunks", response_model=ChunkList, responses=_ERRORS)
async def list_chunks(file_id: FileId, user: CurrentUser, pool: Pool) -> ChunkList:
    """The file's chunks in document order (empty until chunking has run)."""
    await _owned_file(pool, user.id, file_id)
    rows = await chunks.list_chunks(pool, user_id=user.id, file_id=file_id)
    return ChunkList(items=[ChunkRecord.from_row(row) for row in rows])


@router.get(
    "/{file_id}/content",
    response_class=PlainTextResponse,
    responses={**_ERRORS, 409: {"model": ErrorResponse}, 200: {"content": {"text/plain": {}}}},
)
async def get_content(file_id: FileId, user: CurrentUser, pool: Pool) -> PlainTextResponse:
    """The extracted text; chunk ranges are offsets into it."""
    row = await _owned_file(pool, user.id, file_id)
    text = await files.load_text(pool, user_id=user.id, file_id=file_id, live=True)
    if text is None:
        raise HTTPException(409, _no_text_yet(row))
    return PlainTextResponse(text, media_type="text/plain; charset=utf-8")


@router.get("/{file_id}/model-calls", response_model=ModelCallList, responses=_ERRORS)
async def list_model_calls(file_id: FileId, user: CurrentUser, pool: Pool) -> ModelCallList:
    """Every model call made for the file: role, provider, model, tokens, latency, cost."""
    await _owned_file(pool, user.id, file_id)
    return ModelCallList.from_rows(
        await model_calls.list_for_file(pool, user_id=user.id, file_id=file_id)
    )


@router.delete("/{file_id}", status_code=204, response_class=Response, responses=_ERRORS)
async def delete_file(file_id: FileId, user: CurrentUser, pool: Pool) -> Response:
    """Delete the file and everything derived from it (its text and chunks)."""
    if not await files.delete_file(pool, user_id=user.id, file_id=file_id):
        raise HTTPException(404, FILE_NOT_FOUND)
    return Response(status_code=204)


@router.post(
    "/{file_id}/retry",
    status_code=202,
    response_model=FileRecord,
    responses={**_ERRORS, 409: {"model": ErrorResponse}},
)
async def retry_file(
    file_id: FileId, user: CurrentUser, pool: Pool, progress: Progress
) -> FileRecord:
    """Process a failed file again from the start (or one whose processing stopped moving)."""
    quiet = dispatch_settings().redrive_after_seconds
    async with pool.acquire() as conn:
        row = await files.reset_for_retry(
            conn, user_id=user.id, file_id=file_id, quiet_seconds=quiet
        )
    if row is None:
        raise HTTPException(409, _not_retryable(await _owned_file(pool, user.id, file_id), quiet))
    await progress.announce(row)
    return FileRecord.from_row(row)


async def _owned_file(pool: asyncpg.Pool, user_id: UUID, file_id: UUID) -> asyncpg.Record:
    row = await files.get_file(pool, user_id=user_id, file_id=file_id)
    if row is None:
        raise HTTPException(404, FILE_NOT_FOUND)
    return row


def _not_retryable(row: asyncpg.Record, quiet: float) -> str:
    if row["status"] == "ready":
        return "The file is ready; only a failed file (or a stuck one) can be retried."
    return (
        f"The file is still being processed (stage: {row['processing_stage']}); it can be"
        f" retried once it has made no progress for {quiet:.0f} s. Follow its progress with"
        f" GET /v1/files/{row['id']}/events."
    )


def _no_text_yet(row: asyncpg.Record) -> str:
    if row["status"] == "failed":
        return (
            f"The file failed before its text was extracted: {row['error_message']} "
            f"Retry it with POST /v1/files/{row['id']}/retry."
        )
    return (
        f"The text is not extracted yet (stage: {row['processing_stage']}); "
        f"try again in a moment, or follow GET /v1/files/{row['id']}/events."
    )
