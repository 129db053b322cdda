"""List latency: the first page of GET /v1/files for a user with 100 files and one with 100,000,
through the running gateway, and the plan of the list's statement.

Run:  .venv/bin/python -m tests.benchmarks.list_latency [--files 100000] [--requests 200]

Files are rows inserted with SQL (ready, one a second back in time; 1 in 10,000 failed), not
uploads: listing reads only the files table. Prints, per user, the first page's latency as the
client sees it (p50/p95) and as the gateway measured it (mean of its request histogram), a page
in the middle of the list and a `status=failed` page; then the EXPLAIN ANALYZE of each page of
the large user, and what the unpaginated list used to read (every row, and its JSON).
"""

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import httpx

from services.gateway.files.schemas import FileRecord
from shared.db import create_pool, file_lists, files, users
from shared.db.cursors import Cursor
from shared.launcher.stack import Stack
from tests.helpers import own_stack

ADD_FILES = """
    INSERT INTO files (id, user_id, filename, media_type, size, content_hash, file_type, status,
                       processing_stage, progress, total_chunks, processed_chunks, uploaded_at)
    SELECT gen_random_uuid(), $1::uuid, 'note-' || n || '.md', 'text/markdown', 2000,
           $1::text || n, 'factual', s.status, s.status, 100, 4, 4,
           now() - n * interval '1 second'
    FROM generate_series(1, $2::int) AS n,
         LATERAL (SELECT CASE WHEN n % 10000 = 7 THEN 'failed' ELSE 'ready' END AS status) s"""
SERVER_SECONDS = re.compile(
    r'^artisan_http_request_duration_seconds_(sum|count)\{method="GET",route="/v1/files"\} (\S+)$',
    re.MULTILINE,
)


class Explained:
    """A connection that runs each fetch under EXPLAIN ANALYZE first and keeps the plan."""

    def __init__(self, conn: asyncpg.Connection, plan_format: str = "JSON") -> None:
        self.conn = conn
        self.plan_format = plan_format
        self.plans: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        explain = f"EXPLAIN (ANALYZE, BUFFERS, FORMAT {self.plan_format}) {sql}"
        if self.plan_format == "JSON":
            self.plans.append(json.loads(await self.conn.fetchval(explain, *args))[0]["Plan"])
        else:
            self.plans.append("\n".join(r[0] for r in await self.conn.fetch(explain, *args)))
        return await self.conn.fetch(sql, *args)


async def add_user_with_files(pool: asyncpg.Pool, name: str, count: int) -> tuple[UUID, str]:
    """A user holding `count` files. The stored-bytes trigger is skipped while they are inserted
    (it updates the user's row once per file: quadratic in one statement) and its sum set after."""
    user, key = await users.create_user(pool, name=name)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL session_replication_role = replica")
        await conn.execute(ADD_FILES, user.id, count)
        await conn.execute(
            "UPDATE users SET stored_bytes = (SELECT sum(size) FROM files WHERE user_id = $1)"
            " WHERE id = $1",
            user.id,
        )
    return user.id, key


async def server_seconds(http: httpx.AsyncClient) -> tuple[float, float]:
    """The gateway's own (sum, count) of GET /v1/files request seconds."""
    found = dict(SERVER_SECONDS.findall((await http.get("/metrics")).text))
    return float(found.get("sum", 0)), float(found.get("count", 0))


class Timings:
    """Requests' seconds as the client saw them, and the gateway's own sum and count of them."""

    def __init__(self) -> None:
        self.client: list[float] = []
        self.server_sum = self.server_count = 0.0
        self.items = 0

    def summary(self) -> dict[str, float]:
        cuts = statistics.quantiles(self.client, n=20)
        return {
            "client_p50_ms": round(statistics.median(self.client) * 1000, 2),
            "client_p95_ms": round(cuts[18] * 1000, 2),
            "server_mean_ms": round(self.server_sum / max(self.server_count, 1) * 1000, 2),
            "items": self.items,
        }


async def time_pages(
    http: httpx.AsyncClient, params: dict[str, str], requests: int, timings: Timings
) -> None:
    before = await server_seconds(http)
    for _ in range(requests):
        started = time.perf_counter()
        response = await http.get("/v1/files", params=params)
        timings.client.append(time.perf_counter() - started)
        response.raise_for_status()
    after = await server_seconds(http)
    timings.server_sum += after[0] - before[0]
    timings.server_count += after[1] - before[1]
    timings.items = len(response.json()["items"])


async def middle_cursor(pool: asyncpg.Pool, user_id: UUID, count: int) -> str:
    row = await pool.fetchrow(
        "SELECT uploaded_at, id FROM files WHERE user_id = $1"
        " ORDER BY uploaded_at DESC, id DESC OFFSET $2 LIMIT 1",
        user_id,
        count // 2,
    )
    return Cursor(row["uploaded_at"], row["id"]).encode()


async def plans(pool: asyncpg.Pool, user_id: UUID, middle: str) -> list[str]:
    async with pool.acquire() as conn:
        explained = Explained(conn, plan_format="TEXT")
        await file_lists.list_files(explained, user_id=user_id)  # type: ignore[arg-type]
        before = Cursor.decode(middle)
        await file_lists.list_files(explained, user_id=user_id, before=before)  # type: ignore[arg-type]
        await file_lists.list_files(explained, user_id=user_id, status="failed")  # type: ignore[arg-type]
    return explained.plans


async def unpaginated(pool: asyncpg.Pool, user_id: UUID) -> dict[str, float]:
    """What GET /v1/files did before it had pages: every row, and all of them as JSON."""
    started = time.perf_counter()
    rows = await pool.fetch(
        f"SELECT {files.FILE_COLUMNS} FROM files WHERE user_id = $1 ORDER BY uploaded_at DESC, id",
        user_id,
    )
    query_s = time.perf_counter() - started
    body = "[" + ",".join(FileRecord.from_row(r).model_dump_json() for r in rows) + "]"
    return {
        "query_ms": round(query_s * 1000, 1),
        "with_json_ms": round((time.perf_counter() - started) * 1000, 1),
        "json_mb": round(len(body) / 1e6, 1),
    }


async def measure(stack: Stack, sizes: list[int], requests: int, rounds: int = 10) -> None:
    pool = await create_pool(stack.database_url)
    try:
        owners = {size: await add_user_with_files(pool, f"list-{size}", size) for size in sizes}
        await pool.execute("ANALYZE files")
        pages = {
            size: {
                "first page": {"limit": "100"},
                "middle page": {"before": await middle_cursor(pool, user_id, size)},
                "failed only": {"status": "failed"},
            }
            for size, (user_id, _) in owners.items()
        }
        clients = {
            size: httpx.AsyncClient(
                base_url=stack.gateway_url, headers={"Authorization": f"Bearer {key}"}
            )
            for size, (_, key) in owners.items()
        }
        timings = {(size, page): Timings() for size in sizes for page in pages[size]}
        # the sizes take turns, a few requests at a time: a busy machine slows both alike
        for round_number in range(rounds + 1):
            for size, http in clients.items():
                for page, params in pages[size].items():
                    warm = round_number == 0  # connections, prepared statements
                    count = 10 if warm else requests // rounds
                    await time_pages(
                        http, params, count, Timings() if warm else timings[size, page]
                    )
        for http in clients.values():
            await http.aclose()
        for size in sizes:
            results = {page: timings[size, page].summary() for page in pages[size]}
            print(f"\n{size:,} files: " + json.dumps(results, indent=1))
        largest, (user_id, _) = max(owners.items())
        explained = await plans(pool, user_id, pages[largest]["middle page"]["before"])
        for label, plan in zip(pages[largest], explained, strict=True):
            print(f"\nplan, {label}, {largest:,} files:\n{plan}")
        print(f"\nunpaginated, {largest:,} files: {await unpaginated(pool, user_id)}")
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000, help="the large user's files")
    parser.add_argument("--small", type=int, default=100, help="the small user's files")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per page")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, own_stack(Path(data_dir)) as stack:
        asyncio.run(measure(stack, [args.small, args.files], args.requests))


if __name__ == "__main__":
    main()
