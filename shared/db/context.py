"""Read queries for the context of a chat turn (seed 002 P1-P5, seed 003 summaries), each scoped
by user. A turn that is another persona's instruction is never read for a persona, nor is another
persona's turn before its journal row says whether it is one: isolation."""

from collections.abc import Sequence
from uuid import UUID

import asyncpg
import numpy as np

Conn = asyncpg.Connection | asyncpg.Pool

CUT_COLUMNS = """j.turn_id, j.persona_name, j.boss_essence, j.persona_essence,
    j.decision_arc_summary, j.salience_score, j.is_instruction, j.instruction_scope,
    j.created_at"""
# a turn the persona may see ($2: the persona): once journaled, any but an instruction scoped
# to someone else; before (or if journaling fails), only its own persona's, since nothing yet
# says whose instruction it may be
_VISIBLE = """CASE WHEN j.turn_id IS NULL THEN s.persona_name = $2
    ELSE NOT coalesce(j.is_instruction AND j.instruction_scope NOT IN ('global', $2), false) END"""


async def recent_turns(
    conn: Conn,
    *,
    user_id: UUID,
    persona: str,
    conversation_id: UUID | None,
    limit: int,
    exclude: UUID | None,
) -> list[asyncpg.Record]:
    """P1: the conversation's last `limit` turns, oldest first (none for a conversation not
    started yet: starred turns, instructions, facts and the journal span every conversation)."""
    if conversation_id is None:
        return []
    rows = await conn.fetch(
        f"""SELECT s.id, s.persona_name, s.user_message, s.ai_response, s.created_at
            FROM superjournal s LEFT JOIN journal j ON j.turn_id = s.id
            WHERE s.user_id = $1 AND s.conversation_id = $5 AND s.id IS DISTINCT FROM $3
              AND {_VISIBLE}
            ORDER BY s.created_at DESC, s.id DESC
            LIMIT $4""",
        user_id,
        persona,
        exclude,
        limit,
        conversation_id,
    )
    return rows[::-1]


async def starred_turns(
    conn: Conn, *, user_id: UUID, persona: str, limit: int = 200
) -> list[asyncpg.Record]:
    """P2: starred turns, oldest first, with their cut's fields where it exists (for citing)."""
    return await conn.fetch(
        f"""SELECT s.id, s.persona_name, s.user_message, s.ai_response, s.created_at,
                   j.turn_id, j.boss_essence, j.persona_essence, j.decision_arc_summary
            FROM superjournal s LEFT JOIN journal j ON j.turn_id = s.id
            WHERE s.user_id = $1 AND s.is_starred AND {_VISIBLE}
            ORDER BY s.created_at, s.id
            LIMIT $3""",
        user_id,
        persona,
        limit,
    )


async def instructions(conn: Conn, *, user_id: UUID, persona: str) -> list[asyncpg.Record]:
    """P3: instructions scoped global or to this persona, oldest first."""
    return await conn.fetch(
        f"""SELECT {CUT_COLUMNS}, j.instruction FROM journal j
            WHERE j.user_id = $1 AND j.is_instruction AND j.instruction_scope IN ('global', $2)
            ORDER BY j.created_at, j.turn_id""",
        user_id,
        persona,
    )


async def memory_facts(conn: Conn, *, user_id: UUID) -> list[asyncpg.Record]:
    """P3 (memory): the user's durable facts, oldest first."""
    return await conn.fetch(
        """SELECT id, kind, fact, turn_id, created_at FROM memory_facts
           WHERE user_id = $1 ORDER BY created_at, id""",
        user_id,
    )


async def recent_journal(conn: Conn, *, user_id: UUID, limit: int) -> list[asyncpg.Record]:
    """P4: the last `limit` journal entries, oldest first (instructions included: the caller
    drops them, since those in scope are P3's and the others must never enter)."""
    rows = await conn.fetch(
        f"""SELECT {CUT_COLUMNS} FROM journal j WHERE j.user_id = $1
            ORDER BY j.created_at DESC, j.turn_id DESC LIMIT $2""",
        user_id,
        limit,
    )
    return rows[::-1]


async def journal_count(conn: Conn, *, user_id: UUID) -> int:
    return await conn.fetchval("SELECT count(*) FROM journal WHERE user_id = $1", user_id)


async def nearest_journal(
    conn: asyncpg.Connection, *, user_id: UUID, vector: Sequence[float], depth: int
) -> list[asyncpg.Record]:
    """P5 candidates: the `depth` entries nearest the query (cosine), through the HNSW index.

    pgvector 0.6 filters an index scan's ef_search results afterwards, so when other users'
    rows crowd this user's out (fewer than `depth` come back while the user has more), the
    user's own rows are scanned exactly instead; `+ 0` keeps the planner off the index there.
    """
    query = np.asarray(vector, dtype=np.float32)
    # only what ranking needs: the texts of the few chosen are read afterwards (recalled_entries).
    # Ordering by the selected `distance` computes it once per row, where ordering by the
    # expression computed it twice (its 4 KB vector detoasted for each: ~1 ms at depth 150).
    # The search must keep `depth` candidates (hnsw.ef_search): set_config(..., true) lasts as
    # SET LOCAL does (outside a transaction, for this statement alone), and as a one-time filter
    # (it reads no column) it runs before the index scan starts: one round trip, not four.
    nearest = """SELECT turn_id, salience_score, is_instruction, 1 - distance AS similarity
                 FROM (SELECT j.turn_id, j.salience_score, j.is_instruction,
                              j.embedding <=> $2 AS distance
                       FROM journal j
                       WHERE j.user_id = $1 AND j.embedding IS NOT NULL
                         AND (SELECT set_config('hnsw.ef_search', $4, true)) IS NOT NULL
                       ORDER BY {order} LIMIT $3) AS nearest"""
    ef_search = str(max(40, min(depth, 1000)))
    rows = await conn.fetch(nearest.format(order="distance"), user_id, query, depth, ef_search)
    if len(rows) < depth:
        embedded = await conn.fetchval(
            "SELECT count(*) FROM journal WHERE user_id = $1 AND embedding IS NOT NULL", user_id
        )
        if embedded > len(rows):
            exact = nearest.format(order="(j.embedding <=> $2) + 0")
            rows = await conn.fetch(exact, user_id, query, depth, ef_search)
    return rows


async def recalled_entries(
    conn: Conn, *, user_id: UUID, turn_ids: Sequence[UUID]
) -> list[asyncpg.Record]:
    """P5's entries: each cut with the turn's own words (a recalled turn is quoted, not only
    summarised)."""
    return await conn.fetch(
        f"""SELECT {CUT_COLUMNS}, s.user_message, s.ai_response
            FROM journal j JOIN superjournal s ON s.id = j.turn_id
            WHERE j.user_id = $1 AND j.turn_id = ANY($2::uuid[])""",
        user_id,
        list(turn_ids),
    )


async def owned_files(
    conn: Conn, *, user_id: UUID, file_ids: Sequence[UUID]
) -> list[asyncpg.Record]:
    """The files among `file_ids` that belong to the user (others' ids simply do not match)."""
    return await conn.fetch(
        """SELECT id, filename, media_type, status, summary FROM files
           WHERE user_id = $1 AND id = ANY($2::uuid[]) ORDER BY uploaded_at, id""",
        user_id,
        list(file_ids),
    )


async def summarised_files(
    conn: Conn, *, user_id: UUID, file_ids: Sequence[UUID] | None, limit: int = 10
) -> list[asyncpg.Record]:
    """Seed 003 path B: the attached (or else the newest) ready files, oldest first."""
    rows = await conn.fetch(
        """SELECT id, filename, media_type, summary, uploaded_at FROM files
           WHERE user_id = $1 AND (status = 'ready' OR live_version IS NOT NULL)
             AND ($2::uuid[] IS NULL OR id = ANY($2))
           ORDER BY uploaded_at DESC, id LIMIT $3""",
        user_id,
        list(file_ids) if file_ids is not None else None,
        limit,
    )
    return rows[::-1]


async def section_rows(
    conn: Conn, *, user_id: UUID, file_ids: Sequence[UUID], per_file: int = 40
) -> list[asyncpg.Record]:
    """The first `per_file` chunks of each file, in order, with their section summaries."""
    return await conn.fetch(
        """SELECT c.id AS chunk_id, c.file_id, c.chunk_index, c.title, c.char_start, c.char_end,
                  c.line_start, c.line_end, c.text, c.summary
           FROM file_chunks c
           WHERE c.user_id = $1 AND c.file_id = ANY($2::uuid[]) AND c.chunk_index < $3
             AND c.searchable
           ORDER BY c.file_id, c.chunk_index""",
        user_id,
        list(file_ids),
        per_file,
    )
