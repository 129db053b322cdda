"""/v1/documents: the documents the chat's tools made (seed 004: a meeting summary of an attached
transcript), listed, read with their cited items, downloaded as Markdown, deleted."""

import json
import re
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

import asyncpg
from fastapi import APIRouter, Depends, HTTPException, Path, Response
from pydantic import BaseModel, Field

from services.gateway.auth import CurrentUser
from services.gateway.deps import MAX_ID_CHARS, Pool
from services.gateway.paging import DEFAULT_LIMIT, INVALID_PAGE, Before, Limit
from services.gateway.schemas import ErrorResponse
from shared.contracts import Citation
from shared.db import documents

router = APIRouter(prefix="/v1/documents", tags=["documents"])

DOCUMENT_NOT_FOUND = "Document not found: check the id with GET /v1/documents."
_ERRORS = {401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}}


async def parse_document_id(document_id: Annotated[str, Path(max_length=MAX_ID_CHARS)]) -> UUID:
    """A malformed id names no document of yours: 404, like any other unknown id."""
    try:
        return UUID(document_id)
    except ValueError:
        raise HTTPException(404, DOCUMENT_NOT_FOUND) from None


DocumentId = Annotated[UUID, Depends(parse_document_id)]


class DocumentRecord(BaseModel):
    id: UUID
    kind: str = Field(description="meeting_summary")
    title: str
    file_id: UUID | None = Field(description="the file it was made from (None once deleted)")
    filename: str
    turn_id: UUID | None = Field(description="the chat turn whose answer made it")
    created_at: datetime
    item_count: int = 0
    download_url: str = Field(description="GET it for the Markdown")


class DocumentItem(BaseModel):
    section: str = Field(description="decisions | action_items | open_questions")
    text: str
    owner: str | None = Field(None, description="action items: who does it, when stated")
    due: str | None = Field(None, description="action items: by when, as the transcript says")
    citation: Citation = Field(description="the passage it came from, numbered 1…n")


class DocumentDetail(DocumentRecord):
    body: str = Field(description="the document as Markdown")
    items: list[DocumentItem]


class DocumentPage(BaseModel):
    items: list[DocumentRecord] = Field(description="newest first")
    next: str | None = Field(
        description="pass as `before` for the next (older) page; null on the last page"
    )


def _fields(row: asyncpg.Record) -> dict[str, Any]:
    fields = dict(row)
    fields["download_url"] = f"/v1/documents/{row['id']}/export"
    if isinstance(fields.get("items"), str):
        fields["items"] = json.loads(fields["items"])
        fields["item_count"] = len(fields["items"])
    return fields


async def _owned(pool: asyncpg.Pool, user_id: UUID, document_id: UUID) -> asyncpg.Record:
    row = await documents.get_document(pool, user_id=user_id, document_id=document_id)
    if row is None:
        raise HTTPException(404, DOCUMENT_NOT_FOUND)
    return row


@router.get("", response_model=DocumentPage, responses=_ERRORS | INVALID_PAGE)
async def list_documents(
    user: CurrentUser, pool: Pool, before: Before, limit: Limit = DEFAULT_LIMIT
) -> DocumentPage:
    """Your documents, newest first, a page at a time: follow `next` (as `before`)."""
    page = await documents.list_documents(pool, user_id=user.id, limit=limit, before=before)
    return DocumentPage(
        items=[DocumentRecord(**_fields(row)) for row in page.items], next=page.next
    )


@router.get("/{document_id}", response_model=DocumentDetail, responses=_ERRORS)
async def get_document(document_id: DocumentId, user: CurrentUser, pool: Pool) -> DocumentDetail:
    """One document: its Markdown and its items, each with the citation of its passage."""
    return DocumentDetail(**_fields(await _owned(pool, user.id, document_id)))


@router.get(
    "/{document_id}/export",
    response_class=Response,
    responses={
        **_ERRORS,
        200: {"content": {"text/markdown": {}}, "description": "the document as Markdown"},
    },
)
async def export_document(document_id: DocumentId, user: CurrentUser, pool: Pool) -> Response:
    """The document as a Markdown file to save."""
    row = await _owned(pool, user.id, document_id)
    slug = re.sub(r"[^a-z0-9]+", "-", row["title"].lower()).strip("-")[:60] or "document"
    return Response(
        row["body"],
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{slug}.md"'},
    )


@router.delete("/{document_id}", status_code=204, responses=_ERRORS)
async def delete_document(document_id: DocumentId, user: CurrentUser, pool: Pool) -> Response:
    if not await documents.delete_document(pool, user_id=user.id, document_id=document_id):
        raise HTTPException(404, DOCUMENT_NOT_FOUND)
    return Response(status_code=204)
