"""The vector half of file search in a table users share (services/context/vector_candidates.py):
a user with most of the chunks and one with few both get the CANDIDATES nearest of their own, as
an exact scan finds them (pgvector 0.6 filters the index's nearest of every user afterwards)."""

import random

import asyncpg
import numpy as np
import pytest

from services.context.hybrid_search import hybrid_search
from services.context.vector_candidates import CANDIDATES, DEFAULT_WIDTH, EXACT, THROUGH_INDEX
from shared.db import users
from shared.providers.local.embed import embed_texts
from tests.benchmarks.memory_fixtures import insert_files
from tests.helpers import rolled_back

pytestmark = pytest.mark.asyncio(loop_scope="session")

WORDS = [
    *("pricing", "hiring", "churn", "onboarding", "security", "runway", "launch", "board"),
    *("budget", "quarter", "vendor", "contract", "roadmap", "latency", "outage", "invoice"),
    *("discount", "renewal", "forecast", "margin", "audit"),
]


def notes(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=12)) + f" (note {seed}-{i})" for i in range(count)]


async def test_large_and_small_users_get_the_exact_nearest_candidates(db: asyncpg.Pool) -> None:
    large, _ = await users.create_user(db, name="many chunks")
    small, _ = await users.create_user(db, name="few chunks")
    await insert_files(db, large.id, [("large.txt", notes(1500, seed=1))])
    await insert_files(db, small.id, [("small.txt", notes(80, seed=2))])
    await db.execute("ANALYZE file_chunks")
    question = embed_texts(["the pricing and discount decisions of the last quarter"])[0]
    query = np.asarray(question, dtype=np.float32)
    async with rolled_back(db) as conn:
        # the suite's hashed vectors have no HNSW index (embedding_space.match_chunk_index): a
        # real model's is built here over these users' chunks, for this transaction only
        await conn.execute(
            "CREATE INDEX test_hnsw_idx ON file_chunks USING hnsw (embedding vector_cosine_ops)"
            f" WHERE user_id IN ('{large.id}', '{small.id}')"
        )
        # planned for each user's own id, which the index's condition holds
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        # the planner's choice at scale (from ~10,000 chunks on: tests/benchmarks/scale.py),
        # the HNSW index rather than sorting the user's chunks, made with a few thousand here
        await conn.execute("SET LOCAL enable_sort = off")
        plan = await conn.fetch(f"EXPLAIN {THROUGH_INDEX}", large.id, None, query, "400")
        assert "test_hnsw_idx" in "\n".join(row[0] for row in plan)
        for user in (large, small):
            exact = await conn.fetch(EXACT, user.id, None, query, str(DEFAULT_WIDTH))
            # words no chunk holds: the hits are the vector candidates alone, nearest first
            hits = await hybrid_search(
                conn, user_id=user.id, text="qwxz", vector=query, limit=CANDIDATES
            )
            assert len(hits) == CANDIDATES
            found = {hit["chunk_id"] for hit in hits} & {row["id"] for row in exact}
            assert len(found) >= 0.95 * CANDIDATES  # the index is approximate, but not by much
    assert await db.fetchval("SHOW hnsw.ef_search") == str(DEFAULT_WIDTH)  # set per statement
