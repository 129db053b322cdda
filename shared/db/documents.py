"""The documents table: made by the chat service's tools, read and deleted through the gateway.
Every query is scoped by user."""

import json
import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import asyncpg

from shared.db.cursors import Cursor, Page, fetch_page

Conn = asyncpg.Connection | asyncpg.Pool

DOCUMENT_COLUMNS = "id, user_id, kind, title, file_id, filename, turn_id, created_at"


@dataclass(frozen=True)
class NewDocument:
    user_id: UUID
    kind: str
    title: str
    file_id: UUID
    filename: str
    turn_id: UUID | None
    body: str
    items: list[dict[str, Any]]


async def insert_document(conn: Conn, document: NewDocument) -> asyncpg.Record:
    """Store it; the same turn making the same kind of document of the same file again (a
    retried request) returns the row stored the first time."""
    row = await conn.fetchrow(
        f"""INSERT INTO documents
                (id, user_id, kind, title, file_id, filename, turn_id, body, items)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
            ON CONFLICT (turn_id, file_id, kind) WHERE turn_id IS NOT NULL DO NOTHING
            RETURNING {DOCUMENT_COLUMNS}""",
        uuid.uuid4(),
        document.user_id,
        document.kind,
        document.title,
        document.file_id,
        document.filename,
        document.turn_id,
        document.body,
        json.dumps(document.items),
    )
    if row is not None:
        return row
    return await conn.fetchrow(
        f"""SELECT {DOCUMENT_COLUMNS} FROM documents
            WHERE turn_id = $1 AND file_id = $2 AND kind = $3 AND user_id = $4""",
        document.turn_id,
        document.file_id,
        document.kind,
        document.user_id,
    )


async def list_documents(
    conn: Conn, *, user_id: UUID, limit: int = 100, before: Cursor | None = None
) -> Page:
    """The user's documents, newest first; `before` continues after a previous page."""
    return await fetch_page(
        conn,
        f"""SELECT {DOCUMENT_COLUMNS}, jsonb_array_length(items) AS item_count FROM documents
            WHERE user_id = $1 AND (created_at, id) < ($2, $3)
            ORDER BY created_at DESC, id DESC
            LIMIT $4""",
        user_id=user_id,
        limit=limit,
        before=before,
    )


async def get_document(conn: Conn, *, user_id: UUID, document_id: UUID) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {DOCUMENT_COLUMNS}, body, items FROM documents
            WHERE id = $1 AND user_id = $2""",
        document_id,
        user_id,
    )


async def delete_document(conn: Conn, *, user_id: UUID, document_id: UUID) -> bool:
    deleted = await conn.execute(
        "DELETE FROM documents WHERE id = $1 AND user_id = $2", document_id, user_id
    )
    return deleted == "DELETE 1"
