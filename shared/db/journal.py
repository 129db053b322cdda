"""The journal table: the Artisan Cut of each turn, embedded by its decision arc (seed 002)."""

from collections.abc import Sequence
from uuid import UUID

import asyncpg
import numpy as np

from shared.db.cursors import Cursor, Page, fetch_page
from shared.domain import TurnCut

Conn = asyncpg.Connection | asyncpg.Pool

JOURNAL_COLUMNS = """turn_id, user_id, persona_name, boss_essence, persona_essence,
    decision_arc_summary, salience_score, is_instruction, instruction_scope, instruction,
    embedding IS NOT NULL AS embedded, created_at"""


async def upsert_cut(conn: Conn, *, turn: asyncpg.Record, cut: TurnCut) -> bool:
    """Store the cut of a superjournal row, at the turn's time; False when it was already there
    (a redelivery keeps the first cut, and its embedding)."""
    scope = cut.instruction_scope if cut.is_instruction else None
    inserted = await conn.fetchval(
        """INSERT INTO journal (turn_id, user_id, persona_name, boss_essence, persona_essence,
                decision_arc_summary, salience_score, is_instruction, instruction_scope,
                instruction, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (turn_id) DO NOTHING
           RETURNING turn_id""",
        turn["id"],
        turn["user_id"],
        turn["persona_name"],
        cut.boss_essence,
        cut.persona_essence,
        cut.decision_arc_summary,
        cut.salience_score,
        cut.is_instruction and scope is not None,
        scope,
        cut.instruction if scope is not None else None,
        turn["created_at"],
    )
    return inserted is not None


async def has_cut(conn: Conn, *, user_id: UUID, turn_id: UUID) -> bool:
    return await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM journal WHERE turn_id = $1 AND user_id = $2)",
        turn_id,
        user_id,
    )


async def get_entry(conn: Conn, *, user_id: UUID, turn_id: UUID) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {JOURNAL_COLUMNS} FROM journal WHERE turn_id = $1 AND user_id = $2",
        turn_id,
        user_id,
    )


async def store_embedding(
    conn: Conn, *, user_id: UUID, turn_id: UUID, embedding: Sequence[float]
) -> bool:
    updated = await conn.fetchval(
        "UPDATE journal SET embedding = $3 WHERE turn_id = $1 AND user_id = $2 RETURNING turn_id",
        turn_id,
        user_id,
        np.asarray(embedding, dtype=np.float32),
    )
    return updated is not None


async def list_journal(
    conn: Conn, *, user_id: UUID, limit: int = 20, before: Cursor | None = None
) -> Page:
    """The user's journal, newest first; `before` continues after a previous page."""
    return await fetch_page(
        conn,
        f"""SELECT {JOURNAL_COLUMNS} FROM journal
            WHERE user_id = $1 AND (created_at, turn_id) < ($2, $3)
            ORDER BY created_at DESC, turn_id DESC
            LIMIT $4""",
        user_id=user_id,
        limit=limit,
        before=before,
        id_column="turn_id",
    )


async def list_instructions(
    conn: Conn, *, user_id: UUID, persona: str | None = None
) -> list[asyncpg.Record]:
    """Instructions in the order given; for a persona only global ones and its own (seed 002:
    a persona never sees another persona's instructions)."""
    return await conn.fetch(
        f"""SELECT {JOURNAL_COLUMNS} FROM journal
            WHERE user_id = $1 AND is_instruction
              AND ($2::text IS NULL OR instruction_scope = 'global' OR instruction_scope = $2)
            ORDER BY created_at, turn_id""",
        user_id,
        persona,
    )
