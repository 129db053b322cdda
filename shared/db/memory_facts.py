"""The memory_facts table: durable facts about the user and their company (seed 001)."""

import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg

from shared.db.cursors import Cursor, Page, fetch_page
from shared.domain import MemoryFact

Conn = asyncpg.Connection | asyncpg.Pool

MIN_CONFIDENCE = 0.8  # kept only above it (seed 001)
FACT_COLUMNS = "id, user_id, kind, fact, confidence, turn_id, created_at"
_FACT_NAMESPACE = uuid.UUID("5f0c9d7e-7a51-4f0e-9a43-3c1d2b6e8a10")
_HEADINGS = {
    "user": ("USER_MEMORY.md", "User memory", "What Artisan knows about you"),
    "company": ("COMPANY_MEMORY.md", "Company memory", "What Artisan knows about your company"),
}


def fact_key(fact: str) -> str:
    """The fact as normalised lower-case words: restatements that differ only in case,
    punctuation or spacing collapse onto one row."""
    return " ".join(re.findall(r"[a-z0-9]+", fact.lower()))


def fact_id(user_id: UUID, kind: str, key: str) -> UUID:
    return uuid.uuid5(_FACT_NAMESPACE, f"{user_id}:{kind}:{key}")


async def add_facts(
    conn: Conn,
    *,
    user_id: UUID,
    turn_id: UUID,
    facts: Sequence[MemoryFact],
    learned_at: datetime | None = None,
) -> int:
    """Store the facts above the confidence bar, once each, dated `learned_at` (the turn's time;
    None: now); how many were new."""
    added = 0
    for fact in facts:
        key = fact_key(fact.fact)
        if fact.confidence <= MIN_CONFIDENCE or not key:
            continue
        new = await conn.fetchval(
            """INSERT INTO memory_facts (id, user_id, kind, fact, fact_key, confidence, turn_id,
                   created_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, now()))
               ON CONFLICT (user_id, kind, fact_key) DO NOTHING
               RETURNING id""",
            fact_id(user_id, fact.kind, key),
            user_id,
            fact.kind,
            fact.fact.strip(),
            key,
            fact.confidence,
            turn_id,
            learned_at,
        )
        added += new is not None
    return added


async def list_facts(conn: Conn, *, user_id: UUID, kind: str | None = None) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {FACT_COLUMNS} FROM memory_facts
            WHERE user_id = $1 AND ($2::text IS NULL OR kind = $2)
            ORDER BY kind DESC, created_at, id""",
        user_id,
        kind,
    )


async def list_fact_page(
    conn: Conn,
    *,
    user_id: UUID,
    limit: int = 100,
    before: Cursor | None = None,
    kind: str | None = None,
) -> Page:
    """The user's facts (of one kind, if given), newest first; `before` continues after a
    previous page."""
    return await fetch_page(
        conn,
        f"""SELECT {FACT_COLUMNS} FROM memory_facts
            WHERE user_id = $1 AND (created_at, id) < ($2, $3)
              AND ($5::text IS NULL OR kind = $5)
            ORDER BY created_at DESC, id DESC
            LIMIT $4""",
        user_id=user_id,
        limit=limit,
        before=before,
        args=[kind],
    )


async def delete_fact(conn: Conn, *, user_id: UUID, fact_id: UUID) -> bool:
    deleted = await conn.fetchval(
        "DELETE FROM memory_facts WHERE id = $1 AND user_id = $2 RETURNING id", fact_id, user_id
    )
    return deleted is not None


async def export(conn: Conn, *, user_id: UUID) -> dict[str, str]:
    """USER_MEMORY.md and COMPANY_MEMORY.md: one bullet per fact with confidence and date."""
    rows = await list_facts(conn, user_id=user_id)
    return {
        filename: render_memory_file(title, intro, [r for r in rows if r["kind"] == kind])
        for kind, (filename, title, intro) in _HEADINGS.items()
    }


def render_memory_file(title: str, intro: str, rows: Sequence[asyncpg.Record]) -> str:
    lines = [f"# {title}", "", f"{intro}, kept from your conversations.", ""]
    if not rows:
        lines.append("_No facts yet._")
    for row in rows:
        lines.append(
            f"- {row['fact']} (confidence {row['confidence']:.2f},"
            f" {row['created_at'].date().isoformat()})"
        )
    return "\n".join(lines) + "\n"
