"""Bulk fixtures for context and search benchmarks (and the cap test): files, chunks, turns and
journal rows inserted directly, with vectors from the configured embedder, far faster than the
pipeline. Only for volume: behaviour tests send their turns and files through the real system.
"""

import hashlib
import random
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from uuid import UUID

import asyncpg
import numpy as np

from shared.db.conversations import conversation_for_turn
from shared.providers import registry

TOPICS = [
    ("pricing", "raise prices 20% for the pro tier", "usage tiers replace per-seat pricing"),
    ("hiring", "hire two backend engineers in Lisbon", "senior hires before the third quarter"),
    ("churn", "reduce churn among small accounts", "onboarding calls for every new team"),
    ("roadmap", "ship the mobile app before the web redesign", "mobile first, web later"),
    ("fundraising", "raise a seed extension of two million", "bridge round from angels"),
    ("security", "pass the SOC 2 audit this year", "hire an auditor in spring"),
    ("marketing", "move budget from ads to content", "weekly newsletter and case studies"),
    ("support", "answer every ticket within four hours", "rota across the whole team"),
    ("infrastructure", "migrate the database to managed Postgres", "cut the ops burden"),
    ("partnerships", "sign a reseller deal in Germany", "one partner per region"),
]
PERSONAS = ["gunnar", "vlad", "kirby", "stefan", "ananya", "samara"]
# varied wording, so that arcs are distinct points (HNSW and real journals have few duplicates)
QUALIFIERS = ["cautious", "bold", "staged", "reversible", "urgent", "quarterly", "pilot", "full"]
ANGLES = [
    "cost",
    "risk",
    "timing",
    "team capacity",
    "customer impact",
    "cash runway",
    "brand",
    "competitors",
    "legal exposure",
    "board opinion",
    "hiring market",
    "tooling",
]
OWNERS = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun"]


@dataclass(frozen=True)
class FixtureTurn:
    user_message: str
    ai_response: str
    persona: str
    boss_essence: str
    persona_essence: str
    arc: str
    salience: int
    created_at: datetime
    is_instruction: bool = False
    instruction_scope: str | None = None
    id: UUID = field(default_factory=uuid.uuid4)


def synthetic_turns(
    count: int, *, seed: int = 7, start: datetime | None = None
) -> list[FixtureTurn]:
    """`count` plausible business turns, one a minute, over ten recurring topics."""
    rng = random.Random(seed)
    start = start or datetime(2026, 1, 1, tzinfo=UTC)
    turns = []
    for index in range(count):
        topic, decision, detail = rng.choice(TOPICS)
        persona = rng.choice(PERSONAS)
        week = index // 50
        angle, qualifier, owner = rng.choice(ANGLES), rng.choice(QUALIFIERS), rng.choice(OWNERS)
        turns.append(
            FixtureTurn(
                user_message=f"Week {week}: should we {decision}? I am thinking about {topic}.",
                ai_response=f"On {topic}: {detail}. Measure it for two weeks, then decide.",
                persona=persona,
                boss_essence=f"Boss asks whether to {decision} ({topic}, week {week}).",
                persona_essence=f"{persona.title()} advises: {detail}; measure first.",
                arc=f"{topic.title()}: {qualifier} plan to {decision}, weighed on {angle};"
                f" {owner} owns it",
                salience=rng.randint(1, 10),
                created_at=start + timedelta(minutes=index),
                id=uuid.uuid4(),
            )
        )
    return turns


async def _vectors(texts: list[str]) -> np.ndarray:
    """The texts embedded as the system would (the embedder the settings select)."""
    return np.asarray(await registry.embedder().embed(texts), dtype=np.float32)


async def insert_turns(
    conn: asyncpg.Connection | asyncpg.Pool, user_id: UUID, turns: Sequence[FixtureTurn]
) -> None:
    """Superjournal and journal rows for each turn, journaled, with its arc embedded; each
    persona's turns go into its latest conversation (or a new one)."""
    vectors = await _vectors([t.arc for t in turns])
    await _insert_superjournal(conn, user_id, turns)
    await conn.copy_records_to_table(
        "journal",
        columns=[
            "turn_id",
            "user_id",
            "persona_name",
            "boss_essence",
            "persona_essence",
            "decision_arc_summary",
            "salience_score",
            "is_instruction",
            "instruction_scope",
            "embedding",
            "created_at",
        ],
        records=[
            (
                t.id,
                user_id,
                t.persona,
                t.boss_essence,
                t.persona_essence,
                t.arc,
                t.salience,
                t.is_instruction,
                t.instruction_scope,
                vector,
                t.created_at,
            )
            for t, vector in zip(turns, vectors, strict=True)
        ],
    )


async def _insert_superjournal(
    conn: asyncpg.Connection | asyncpg.Pool, user_id: UUID, turns: Sequence[FixtureTurn]
) -> None:
    conversation = {
        persona: await conversation_for_turn(conn, user_id=user_id, persona=persona)
        for persona in sorted({t.persona for t in turns})
    }
    columns = ["id", "user_id", "conversation_id", "persona_name", "user_message"]
    await conn.copy_records_to_table(
        "superjournal",
        columns=[*columns, "ai_response", "journal_status", "created_at"],
        records=[
            (
                t.id,
                user_id,
                conversation[t.persona],
                t.persona,
                t.user_message,
                t.ai_response,
                "journaled",
                t.created_at,
            )
            for t in turns
        ],
    )


async def insert_files(
    conn: asyncpg.Connection | asyncpg.Pool,
    user_id: UUID,
    documents: Sequence[tuple[str, str | list[str]]],
    *,
    chunks_per_file: int = 1,
) -> list[UUID]:
    """Ready factual files; returns their ids. A document given as a list of pieces gets one
    chunk per piece (joined by blank lines), one given as text `chunks_per_file` equal ones."""
    file_rows, chunk_rows = [], []
    for filename, content in documents:
        text, bounds = _chunk_bounds(content, chunks_per_file)
        file_id = uuid.uuid4()
        digest = hashlib.sha256(f"{user_id}{filename}{text}".encode()).hexdigest()
        file_rows.append((file_id, user_id, filename, len(text), digest, len(bounds), text[:200]))
        for index, (start, end) in enumerate(bounds):
            piece = text[start:end]
            line = text.count("\n", 0, start) + 1
            chunk_rows.append(
                [
                    uuid.uuid5(file_id, f"chunk:{index}"),
                    file_id,
                    user_id,
                    index,
                    piece.split("\n", 1)[0][:80],
                    start,
                    end,
                    line,
                    line + piece.count("\n"),
                    piece,
                    piece[:160],
                ]
            )
    vectors = await _vectors([f"{row[4]}\n{row[9]}" for row in chunk_rows])
    await conn.executemany(
        """INSERT INTO files (id, user_id, filename, media_type, size, content_hash, file_type,
               status, processing_stage, progress, total_chunks, processed_chunks, summary)
           VALUES ($1, $2, $3, 'text/plain', $4, $5, 'factual', 'ready', 'ready', 100, $6, $6,
                   $7)""",
        file_rows,
    )
    await conn.executemany(
        """INSERT INTO file_chunks (id, file_id, user_id, chunk_index, chunk_type, title,
               char_start, char_end, line_start, line_end, text, summary, embedding)
           VALUES ($1, $2, $3, $4, 'factual', $5, $6, $7, $8, $9, $10, $11, $12)""",
        [(*row, vector) for row, vector in zip(chunk_rows, vectors, strict=True)],
    )
    return [row[0] for row in file_rows]


def _chunk_bounds(content: str | list[str], parts: int) -> tuple[str, list[tuple[int, int]]]:
    if isinstance(content, list):
        bounds, position = [], 0
        for piece in content:
            bounds.append((position, position + len(piece)))
            position += len(piece) + 2
        return "\n\n".join(content), bounds
    step = max(1, len(content) // parts)
    ends = [len(content) if i == parts - 1 else (i + 1) * step for i in range(parts)]
    return content, [(i * step, end) for i, end in enumerate(ends)]


@asynccontextmanager
async def journal_index_rebuilt(conn: asyncpg.Connection) -> AsyncIterator[None]:
    """Bulk loads: drop the journal's HNSW index, then build it once over everything."""
    definition = await conn.fetchval(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'journal_embedding_idx'"
    )
    await conn.execute("DROP INDEX IF EXISTS journal_embedding_idx")
    try:
        yield
    finally:
        await conn.execute("SET maintenance_work_mem = '1GB'")
        # IF NOT EXISTS: a service adopting the embedding space meanwhile may have rebuilt it
        await conn.execute(definition.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
        # as autovacuum leaves a settled table: visibility maps set, so the postings'
        # index-only scans (journal_terms) read no heap
        await conn.execute("VACUUM ANALYZE journal, journal_terms")
