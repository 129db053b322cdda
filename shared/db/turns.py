"""The superjournal table: every conversation turn in full (seed 002)."""

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

import asyncpg

from shared.db import conversations
from shared.db.cursors import Cursor, Page, fetch_page

Conn = asyncpg.Connection | asyncpg.Pool

TURN_COLUMNS = """id, user_id, conversation_id, persona_name, user_message, ai_response, model,
    prompt_tokens, completion_tokens, attachments, cited_chunk_ids, citations, context_sections,
    is_starred, imported, journal_status, journal_error, created_at"""


@dataclass(frozen=True)
class NewTurn:
    user_id: UUID
    persona_name: str
    user_message: str  # secrets already redacted
    ai_response: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attachments: Sequence[UUID] = ()
    citations: Sequence[dict] = ()  # Citation.model_dump(mode="json") of each
    context_sections: Sequence[dict] = ()
    imported: bool = False
    created_at: datetime | None = None  # None: now
    conversation_id: UUID | None = None  # None: the persona's latest conversation, or a new one
    id: UUID = field(default_factory=uuid.uuid4)
    trace_context: dict[str, str] = field(default_factory=dict)  # continued by its journaling


async def insert_turn(conn: Conn, turn: NewTurn) -> asyncpg.Record:
    """Store a turn (idempotent on its id) in its conversation and return the row; the
    gateway's dispatcher queues it for the journal once committed (published_at stays NULL
    until then)."""
    if isinstance(conn, asyncpg.Pool):
        async with conn.acquire() as acquired, acquired.transaction():
            return await _insert_turn(acquired, turn)
    async with conn.transaction():  # a savepoint when the caller's transaction is open
        return await _insert_turn(conn, turn)


async def _insert_turn(conn: asyncpg.Connection, turn: NewTurn) -> asyncpg.Record:
    conversation_id = turn.conversation_id or await _stored_conversation(conn, turn)
    cited = [UUID(str(c["chunk_id"])) for c in turn.citations if c.get("chunk_id")]
    row = await conn.fetchrow(
        f"""INSERT INTO superjournal (id, user_id, conversation_id, persona_name, user_message,
                ai_response, model, prompt_tokens, completion_tokens, attachments,
                cited_chunk_ids, citations, context_sections, imported, created_at, trace_context)
            VALUES ($1, $2, $16, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13,
                    coalesce($14, now()), $15::jsonb)
            ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
            RETURNING {TURN_COLUMNS}""",
        turn.id,
        turn.user_id,
        turn.persona_name,
        turn.user_message,
        turn.ai_response,
        turn.model,
        turn.prompt_tokens,
        turn.completion_tokens,
        list(turn.attachments),
        list(dict.fromkeys(cited)),
        json.dumps(list(turn.citations)),
        json.dumps(list(turn.context_sections)),
        turn.imported,
        turn.created_at,
        json.dumps(turn.trace_context),
        conversation_id,
    )
    await conversations.record_turn(
        conn,
        conversation_id=row["conversation_id"],
        at=row["created_at"],
        question=row["user_message"],
    )
    return row


async def _stored_conversation(conn: asyncpg.Connection, turn: NewTurn) -> UUID:
    """Where a turn sent without a conversation goes: where it already is (a retry stores it
    once), else the persona's latest conversation, or a new one."""
    stored = await conn.fetchval(
        "SELECT conversation_id FROM superjournal WHERE id = $1 AND user_id = $2",
        turn.id,
        turn.user_id,
    )
    return stored or await conversations.conversation_for_turn(
        conn, user_id=turn.user_id, persona=turn.persona_name
    )


async def get_turn(conn: Conn, *, user_id: UUID, turn_id: UUID) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {TURN_COLUMNS} FROM superjournal WHERE id = $1 AND user_id = $2",
        turn_id,
        user_id,
    )


async def turns_by_id(
    conn: Conn, *, user_id: UUID, turn_ids: Sequence[UUID]
) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT {TURN_COLUMNS} FROM superjournal WHERE user_id = $1 AND id = ANY($2::uuid[])",
        user_id,
        list(turn_ids),
    )


async def turn_exists(conn: Conn, *, user_id: UUID, turn_id: UUID) -> bool:
    return await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM superjournal WHERE id = $1 AND user_id = $2)",
        turn_id,
        user_id,
    )


async def list_turns(
    conn: Conn,
    *,
    user_id: UUID,
    limit: int = 20,
    before: Cursor | None = None,
    conversation_id: UUID | None = None,
) -> Page:
    """The user's turns (of one conversation, if given), newest first; `before` continues
    after a previous page."""
    # its own statement, so that a cached plan reads superjournal_conversation_idx for it
    in_conversation = "AND conversation_id = $5" if conversation_id else ""
    return await fetch_page(
        conn,
        f"""SELECT {TURN_COLUMNS} FROM superjournal
            WHERE user_id = $1 AND (created_at, id) < ($2, $3) {in_conversation}
            ORDER BY created_at DESC, id DESC
            LIMIT $4""",
        user_id=user_id,
        limit=limit,
        before=before,
        args=[conversation_id] if conversation_id else [],
    )


async def set_starred(
    conn: Conn, *, user_id: UUID, turn_id: UUID, starred: bool
) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""UPDATE superjournal SET is_starred = $3 WHERE id = $1 AND user_id = $2
            RETURNING {TURN_COLUMNS}""",
        turn_id,
        user_id,
        starred,
    )


async def delete_turn(conn: Conn, *, user_id: UUID, turn_id: UUID) -> bool:
    """Delete the turn; its journal row and memory facts go with it (foreign-key cascades)."""
    deleted = await conn.fetchval(
        "DELETE FROM superjournal WHERE id = $1 AND user_id = $2 RETURNING id", turn_id, user_id
    )
    return deleted is not None


async def mark_journaled(conn: Conn, *, user_id: UUID, turn_id: UUID) -> bool:
    updated = await conn.fetchval(
        """UPDATE superjournal SET journal_status = 'journaled', journal_error = NULL
           WHERE id = $1 AND user_id = $2 RETURNING id""",
        turn_id,
        user_id,
    )
    return updated is not None


async def mark_journal_failed(conn: Conn, *, user_id: UUID, turn_id: UUID, reason: str) -> bool:
    updated = await conn.fetchval(
        """UPDATE superjournal SET journal_status = 'failed', journal_error = $3
           WHERE id = $1 AND user_id = $2 RETURNING id""",
        turn_id,
        user_id,
        reason,
    )
    return updated is not None


async def reopen_journaled_turns(conn: Conn) -> list[asyncpg.Record]:
    """Every turn with a journal row back to pending (re-embedding); their ids and owners."""
    return await conn.fetch(
        """UPDATE superjournal s SET journal_status = 'pending', journal_error = NULL
           FROM journal j WHERE j.turn_id = s.id
           RETURNING s.id, s.user_id"""
    )
