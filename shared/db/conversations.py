"""The conversations table: a user's conversations, each with a persona, holding their turns.

P1 (the last turns) is read from one conversation; starred turns, instructions, memory facts
and the journal span them all (shared/db/context.py). Deleting a conversation deletes its turns,
and through the foreign keys their journal rows, postings and memory facts.
"""

import uuid
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg

from shared.db.cursors import Cursor, Page, page_of, start_of
from shared.text.words import shorten

Conn = asyncpg.Connection | asyncpg.Pool

UNTITLED = "New conversation"  # the title shown until it is named or its first question names it
MAX_AUTO_TITLE_CHARS = 60  # a title taken from the first question is shortened to this
COLUMNS = """c.id, c.user_id, c.persona_name, c.title, c.created_at, c.updated_at,
    (SELECT count(*) FROM superjournal s WHERE s.conversation_id = c.id) AS turn_count"""


def title_from(question: str) -> str:
    """A conversation's default title: its first question, on one line, shortened."""
    return shorten(question, MAX_AUTO_TITLE_CHARS, "…")


async def create_conversation(
    conn: Conn, *, user_id: UUID, persona: str, title: str | None = None
) -> asyncpg.Record:
    return await conn.fetchrow(
        f"""WITH c AS (
                INSERT INTO conversations (id, user_id, persona_name, title)
                VALUES ($1, $2, $3, $4) RETURNING *)
            SELECT {COLUMNS} FROM c""",
        uuid.uuid4(),
        user_id,
        persona,
        title,
    )


async def ensure_conversation(
    conn: Conn, *, conversation_id: UUID, user_id: UUID, persona: str, title: str
) -> UUID:
    """The conversation with this id, made now if it does not exist (or was deleted): for a
    caller whose conversation is named by a fixed id rather than stored by the caller."""
    await conn.execute(
        """INSERT INTO conversations (id, user_id, persona_name, title)
           VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING""",
        conversation_id,
        user_id,
        persona,
        title,
    )
    return conversation_id


async def get_conversation(
    conn: Conn, *, user_id: UUID, conversation_id: UUID
) -> asyncpg.Record | None:
    """The conversation, if it is the user's (another user's id finds nothing)."""
    return await conn.fetchrow(
        f"SELECT {COLUMNS} FROM conversations c WHERE c.id = $1 AND c.user_id = $2",
        conversation_id,
        user_id,
    )


async def latest_with_persona(conn: Conn, *, user_id: UUID, persona: str) -> asyncpg.Record | None:
    """The persona's most recently updated conversation: where a question without a
    conversation goes."""
    return await conn.fetchrow(
        f"""SELECT {COLUMNS} FROM conversations c
            WHERE c.user_id = $1 AND c.persona_name = $2
            ORDER BY c.updated_at DESC, c.id DESC LIMIT 1""",
        user_id,
        persona,
    )


async def conversation_for_turn(conn: Conn, *, user_id: UUID, persona: str) -> UUID:
    """The persona's latest conversation, or a new one: the one rule for a turn sent without a
    conversation."""
    found = await latest_with_persona(conn, user_id=user_id, persona=persona)
    if found is None:
        found = await create_conversation(conn, user_id=user_id, persona=persona)
    return found["id"]


async def record_turn(
    conn: Conn, *, conversation_id: UUID, at: datetime | None, question: str
) -> None:
    """A turn was added: the conversation was active then, and an untitled one is named after
    its first question."""
    await conn.execute(
        """UPDATE conversations
           SET updated_at = greatest(updated_at, coalesce($2, now())),
               title = coalesce(title, $3)
           WHERE id = $1""",
        conversation_id,
        at,
        title_from(question) or None,
    )


async def list_conversations(
    conn: Conn,
    *,
    user_id: UUID,
    query: str | None = None,
    persona: str | None = None,
    limit: int = 50,
    before: Cursor | None = None,
) -> Page:
    """The user's conversations, latest activity first. With `query`: those whose title holds
    it, or whose turns (and title) hold every word of it, as full-text search stems them."""
    rows = await conn.fetch(
        f"""WITH words AS (
                SELECT DISTINCT t.lexeme FROM unnest(to_tsvector('english', coalesce($3, ''))) t
            ), hits AS (
                -- journaled turns, through the postings of the query's words (journal_terms)
                SELECT s.conversation_id, t.lexeme
                FROM journal_terms t JOIN superjournal s ON s.id = t.turn_id
                WHERE t.user_id = $1 AND t.lexeme IN (SELECT lexeme FROM words)
                UNION
                -- turns still on their way into the journal (or that failed it): few
                SELECT s.conversation_id, w.lexeme
                FROM superjournal s, words w
                WHERE s.user_id = $1 AND s.journal_status <> 'journaled'
                  AND w.lexeme = ANY(tsvector_to_array(
                      to_tsvector('english', s.user_message || ' ' || s.ai_response)))
                UNION
                SELECT c.id, w.lexeme FROM conversations c, words w
                WHERE c.user_id = $1 AND c.title IS NOT NULL
                  AND w.lexeme = ANY(tsvector_to_array(to_tsvector('english', c.title)))
            ), found AS (
                SELECT conversation_id FROM hits GROUP BY conversation_id
                HAVING count(*) = (SELECT count(*) FROM words)
            )
            SELECT {COLUMNS} FROM conversations c
            WHERE c.user_id = $1
              AND ($2::text IS NULL OR c.persona_name = $2)
              AND ($3::text IS NULL
                   OR strpos(lower(coalesce(c.title, '')), lower($3)) > 0
                   OR c.id IN (SELECT conversation_id FROM found))
              AND (c.updated_at, c.id) < ($4, $5)
            ORDER BY c.updated_at DESC, c.id DESC
            LIMIT $6""",
        user_id,
        persona,
        query,
        start_of(before).created_at,
        start_of(before).id,
        limit + 1,
    )
    return page_of(list(rows), limit, "id", time_column="updated_at")


async def update_conversation(
    conn: Conn,
    *,
    user_id: UUID,
    conversation_id: UUID,
    title: str | None = None,
    persona: str | None = None,
) -> asyncpg.Record | None:
    """Rename it, or give it another persona (None leaves a field as it is)."""
    return await conn.fetchrow(
        f"""WITH c AS (
                UPDATE conversations SET title = coalesce($3, title),
                                         persona_name = coalesce($4, persona_name)
                WHERE id = $1 AND user_id = $2 RETURNING *)
            SELECT {COLUMNS} FROM c""",
        conversation_id,
        user_id,
        title,
        persona,
    )


async def delete_conversation(conn: Conn, *, user_id: UUID, conversation_id: UUID) -> bool:
    """Delete it with its turns (their journal rows and memory facts go with them)."""
    deleted = await conn.fetchval(
        "DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id",
        conversation_id,
        user_id,
    )
    return deleted is not None


async def conversation_turns(
    conn: Conn, *, user_id: UUID, conversation_id: UUID
) -> Sequence[asyncpg.Record]:
    """Every turn of the conversation, oldest first (for the export)."""
    return await conn.fetch(
        """SELECT id, persona_name, user_message, ai_response, citations, is_starred, created_at
           FROM superjournal WHERE conversation_id = $1 AND user_id = $2
           ORDER BY created_at, id""",
        conversation_id,
        user_id,
    )
