"""The superjournal table: every conversation turn in full (seed 002)."""

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool

TURN_COLUMNS = """id, user_id, persona_name, user_message, ai_response, model, prompt_tokens,
    completion_tokens, attachments, cited_chunk_ids, citations, context_sections, is_starred,
    imported, journal_status, journal_error, created_at"""


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
    id: UUID = field(default_factory=uuid.uuid4)


async def insert_turn(conn: Conn, turn: NewTurn) -> asyncpg.Record:
    """Store a turn (idempotent on its id) and return the row."""
    cited = [UUID(str(c["chunk_id"])) for c in turn.citations if c.get("chunk_id")]
    return await conn.fetchrow(
        f"""INSERT INTO superjournal (id, user_id, persona_name, user_message, ai_response, model,
                prompt_tokens, completion_tokens, attachments, cited_chunk_ids, citations,
                context_sections, imported, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13,
                    coalesce($14, now()))
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
    )
