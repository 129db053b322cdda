"""Finding the conversation a request names, or the one a question without a name goes to.

Another user's conversation is a 404, like an id that names nothing: its existence is not told.
"""

from uuid import UUID

import asyncpg
from fastapi import HTTPException

from shared.db import conversations
from shared.personas import get_persona

CONVERSATION_NOT_FOUND = "Conversation not found: check the id with GET /v1/conversations."


def conversation_id_of(value: str) -> UUID:
    """A malformed id names no conversation of yours: 404, like any other unknown id."""
    try:
        return UUID(value)
    except ValueError:
        raise HTTPException(404, CONVERSATION_NOT_FOUND) from None


async def owned_conversation(
    pool: asyncpg.Pool, user_id: UUID, conversation_id: UUID
) -> asyncpg.Record:
    row = await conversations.get_conversation(
        pool, user_id=user_id, conversation_id=conversation_id
    )
    if row is None:
        raise HTTPException(404, CONVERSATION_NOT_FOUND)
    return row


async def conversation_for_question(
    pool: asyncpg.Pool,
    user_id: UUID,
    persona: str,
    conversation_id: UUID | None,
    *,
    start: bool = False,
) -> UUID | None:
    """The named conversation (it must be with this persona), else the persona's latest; when
    the persona has none yet, a new one with `start`, else None (a question's context then has
    no recent turns)."""
    if conversation_id is None:
        if start:
            return await conversations.conversation_for_turn(pool, user_id=user_id, persona=persona)
        latest = await conversations.latest_with_persona(pool, user_id=user_id, persona=persona)
        return None if latest is None else latest["id"]
    row = await owned_conversation(pool, user_id, conversation_id)
    if row["persona_name"] != persona:
        found = get_persona(row["persona_name"])
        with_whom = found.display_name if found else row["persona_name"]
        raise HTTPException(
            409,
            f"This conversation is with {with_whom}: ask {with_whom} ({row['persona_name']!r})"
            " in it, start a new conversation, or change its persona with"
            " PATCH /v1/conversations/{id}.",
        )
    return row["id"]
