"""The scale benchmark's second half: search and context-build latency over HTTP, and the vector
query as the context service runs it — its plan, and its candidates against an exact scan's."""

import statistics
import time
from uuid import UUID

import asyncpg
import httpx
import numpy as np

from services.context.vector_candidates import CANDIDATES, DEFAULT_WIDTH, EXACT, nearest_chunks
from shared.db import create_pool
from shared.launcher.stack import Stack
from shared.personas import persona_names
from shared.providers import registry

# the vector query before the search width followed the user's share: the index at its default
# width, whose nearest 40 of every user's chunks WHERE then filters
BEFORE = f"""
    SELECT c.id, 1 - (c.embedding <=> $3) AS similarity FROM file_chunks c
    WHERE c.user_id = $1 AND c.embedding IS NOT NULL AND c.searchable
      AND ($2::uuid[] IS NULL OR c.file_id = ANY($2))
    ORDER BY c.embedding <=> $3
    LIMIT {CANDIDATES}
"""
RECALL_QUESTIONS = 30


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(name: str, seconds: list[float], shares: tuple[float, ...]) -> str:
    figures = ", ".join(f"p{round(100 * s)} {1000 * percentile(seconds, s):.1f} ms" for s in shares)
    return f"{name}: {figures} (n={len(seconds)}, mean {1000 * statistics.mean(seconds):.1f} ms)"


async def timed_gets(client: httpx.AsyncClient, path: str, params: list[dict]) -> list[float]:
    timings = []
    await client.get(path, params=params[0])  # warm: the first request pays connection set-up
    for query in params:
        started = time.perf_counter()
        response = await client.get(path, params=query, timeout=60)
        timings.append(time.perf_counter() - started)
        response.raise_for_status()
    return timings


async def measure_search(stack: Stack, keys: dict[str, tuple[UUID, str]], asked: list[str]) -> None:
    persona = persona_names()[0]
    for name in ("large", "small0"):
        if name not in keys:
            continue
        headers = {"Authorization": f"Bearer {keys[name][1]}"}
        async with httpx.AsyncClient(base_url=stack.gateway_url, headers=headers) as client:
            searches = await timed_gets(client, "/v1/search", [{"q": q} for q in asked])
            print(summary(f"search {name}", searches, (0.5, 0.95, 0.99)), flush=True)
            if name == "large":
                previews = [{"persona": persona, "q": q} for q in asked]
                built = await timed_gets(client, "/v1/context/preview", previews)
                print(summary(f"context build {name}", built, (0.5, 0.95)), flush=True)
    await vector_query(stack, keys, asked)


async def vector_query(stack: Stack, keys: dict[str, tuple[UUID, str]], asked: list[str]) -> None:
    """The plan of the vector query, and how many of an exact scan's candidates it finds, as
    the context service runs it now and as it ran before."""
    vectors = await registry.embedder().embed(asked[:RECALL_QUESTIONS], input_type="query")
    queries = [np.asarray(vector, dtype=np.float32) for vector in vectors]
    pool = await create_pool(stack.database_url)
    try:
        async with pool.acquire() as conn:
            await conn.execute("ANALYZE file_chunks")
            for name in ("large", "small0"):
                if name in keys:
                    user_id = keys[name][0]
                    plan = await explained(conn, user_id, queries[0])
                    print(f"vector query plan, {name}:\n  " + "\n  ".join(plan), flush=True)
                    for line in await candidates(conn, user_id, queries):
                        print(f"vector candidates, {name}, {line}", flush=True)
    finally:
        await pool.close()


async def candidates(
    conn: asyncpg.Connection, user_id: UUID, queries: list[np.ndarray]
) -> list[str]:
    """Before and now: candidates returned, their recall against an exact scan, and time."""
    exact = [
        {r["id"] for r in await conn.fetch(EXACT, user_id, None, q, str(DEFAULT_WIDTH))}
        for q in queries
    ]
    searches = {
        "before": lambda q: conn.fetch(BEFORE, user_id, None, q),
        "now": lambda q: nearest_chunks(conn, user_id=user_id, vector=q),
    }
    lines = []
    for label, search in searches.items():
        found, recall, seconds = [], [], []
        for query, wanted in zip(queries, exact, strict=True):
            started = time.perf_counter()
            rows = await search(query)
            seconds.append(time.perf_counter() - started)
            found.append(len(rows))
            recall.append(len({r["id"] for r in rows} & wanted) / max(1, len(wanted)))
        lines.append(
            f"{label}: {statistics.mean(found):.1f} of {CANDIDATES} returned, recall against an"
            f" exact scan {statistics.mean(recall):.3f}, {summary('time', seconds, (0.5, 0.95))}"
        )
    return lines


async def explained(conn: asyncpg.Connection, user_id: UUID, query: np.ndarray) -> list[str]:
    """EXPLAIN ANALYZE of each statement nearest_chunks runs, through a connection that
    records them."""
    lines: list[str] = []

    class Explaining:
        async def fetchval(self, sql: str, *args: object) -> object:
            return await conn.fetchval(sql, *args)

        async def fetch(self, sql: str, *args: object) -> list:
            plan = await conn.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", *args)
            lines.extend(row[0] for row in plan)
            return await conn.fetch(sql, *args)

    await nearest_chunks(Explaining(), user_id=user_id, vector=query)  # type: ignore[arg-type]
    return lines
