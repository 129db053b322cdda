"""P5 journal recall (seed 002) at 10,000 and 100,000 entries: latency of the whole recall the
context service runs (BM25 over journal_terms and HNSW neighbours fused, salience-weighted,
exclusions, top 10, with the turns' words), and how many of an exact scan's top 10 vector
neighbours (by similarity × salience/10) the HNSW scan finds.

Run:  .venv/bin/python -m tests.benchmarks.journal_search [--sizes 10000 100000] [--queries 300]
Needs only PostgreSQL (embedded, in a temporary directory); rows are bulk-inserted.
"""

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from uuid import UUID

import asyncpg

from services.context.recall import DEPTH_PER_RESULT, recalled_candidates
from shared.db import create_pool, users
from shared.db.context import nearest_journal, recent_journal
from shared.db.migrations import apply_migrations
from shared.launcher.embedded import start_postgres
from shared.providers.local.embed import embed_texts
from tests.benchmarks.memory_fixtures import (
    TOPICS,
    insert_turns,
    journal_index_rebuilt,
    synthetic_turns,
)

RECALLED = 10
EXACT = """SELECT turn_id, salience_score, is_instruction, 1 - (embedding <=> $2) AS similarity
           FROM journal WHERE user_id = $1 ORDER BY (embedding <=> $2) + 0"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def questions(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    forms = [
        "What did we decide about {}?",
        "Should we {} after all?",
        "Remind me why we {}",
        "Any history on {}?",
        "What were the risks when we discussed {}?",
    ]
    return [
        rng.choice(forms).format(rng.choice([t[0], t[1]])) for t in rng.choices(TOPICS, k=count)
    ]


def vector_top(rows: list[asyncpg.Record], loaded: set[UUID]) -> set[UUID]:
    """The RECALLED best by similarity × salience/10, never loaded, never an instruction."""
    scored = [
        (r["similarity"] * r["salience_score"] / 10, r["turn_id"])
        for r in rows
        if not r["is_instruction"] and r["turn_id"] not in loaded
    ]
    return {turn_id for _, turn_id in sorted(scored, reverse=True)[:RECALLED]}


async def measure(pool: asyncpg.Pool, user_id: UUID, queries: list[str], per_result: int) -> dict:
    loaded = {r["turn_id"] for r in await recent_journal(pool, user_id=user_id, limit=100)}
    depth = RECALLED * per_result + len(loaded)
    latencies, overlap = [], []
    async with pool.acquire() as conn:
        for text in queries:
            vector = embed_texts([text])[0]
            started = time.perf_counter()
            await recalled_candidates(
                conn,
                user_id=user_id,
                query=text,
                vector=vector,
                vector_weight=1.0,  # the costlier case: a real embedder's vectors vote
                loaded=loaded,
                limit=RECALLED,
            )
            latencies.append(time.perf_counter() - started)
            rows = await nearest_journal(conn, user_id=user_id, vector=vector, depth=depth)
            exact_rows = await conn.fetch(EXACT, user_id, vector.astype("float32"))
            found, exact = vector_top(rows, loaded), vector_top(exact_rows, loaded)
            overlap.append(len(found & exact) / RECALLED)
    return {
        "p50_ms": 1000 * percentile(latencies, 0.5),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "recall@10_vs_exact": sum(overlap) / len(overlap),
    }


async def run(
    sizes: list[int], query_count: int, per_results: list[int], data_dir: Path
) -> list[tuple[int, int, dict]]:
    postgres = start_postgres(data_dir / "pgdata")
    try:
        await apply_migrations(postgres.url)
        pool = await create_pool(postgres.url, max_size=2)
        user, _ = await users.create_user(pool, name="journal-bench")
        results, have = [], 0
        all_turns = synthetic_turns(max(sizes))
        for size in sorted(sizes):
            async with pool.acquire() as conn, journal_index_rebuilt(conn):
                await insert_turns(conn, user.id, all_turns[have:size])
            have = size
            for per_result in per_results:
                found = await measure(pool, user.id, questions(query_count), per_result)
                results.append((size, per_result, found))
        await pool.close()
        return results
    finally:
        postgres.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--per-result",
        type=int,
        nargs="+",
        default=[DEPTH_PER_RESULT],
        help="HNSW neighbours fetched per P5 result (the context service uses the first)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        results = asyncio.run(run(args.sizes, args.queries, args.per_result, Path(data_dir)))
    print(f"{'entries':>8} {'depth':>6} {'p50 ms':>8} {'p99 ms':>8} {'top-10 vs exact':>16}")
    for size, per_result, r in results:
        print(
            f"{size:>8} {per_result:>6} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}"
            f" {r['recall@10_vs_exact']:>16.2f}"
        )


if __name__ == "__main__":
    main()
