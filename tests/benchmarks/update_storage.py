"""Storage after repeated updates: a 1 MB text file uploaded, then updated in place N times.

Run:  .venv/bin/python -m tests.benchmarks.update_storage [--puts 50] [--size 1000000]
                                                          [--edit section|all]
`--edit section` rewrites one section per update (a document being edited: one chunk replaced
each time); `--edit all` changes every section (a regenerated file: every chunk replaced).
Prints the chunk rows kept, the bytes the quota counts (users.stored_bytes) and the tables'
sizes (pg_total_relation_size after VACUUM FULL, so deleted rows do not count) after the
upload and after the updates.
"""

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

import asyncpg
import httpx

from shared.db import create_pool, users
from shared.launcher.stack import Stack
from tests.helpers import follow_until_settled, own_stack

# hashed words (as the test suite's): a vector takes the same room whichever model made it
CHEAP_EMBEDDINGS = {"ARTISAN_EMBED_PROVIDER": "local"}
TABLES = ("files", "file_contents", "file_chunks", "chunk_terms")
WORDS = ("pricing", "hiring", "expansion", "churn", "onboarding", "security", "partners")
WORDS += ("budget", "roadmap", "launch", "review", "customer", "decision", "quarter", "risk")
WORDS += ("vendor", "market", "team", "goal", "metric", "plan", "report", "release")


def section(rng: random.Random, index: int, version: int) -> str:
    sentences = " ".join(
        f"In section {index} (revision {version}) we {rng.choice(WORDS)} the"
        f" {rng.choice(WORDS)} {rng.choice(WORDS)} by {rng.randint(2, 90)} percent."
        for _ in range(24)
    )
    return f"## Section {index}\n\n{sentences}\n"


def document(size: int, revisions: dict[int, int]) -> bytes:
    """About `size` bytes of sections; section i at revision revisions.get(i, 0)."""
    parts, total, index = ["# Operations handbook\n"], 0, 0
    while total < size:
        version = revisions.get(index, 0)
        text = section(random.Random(f"{index}:{version}"), index, version)
        parts.append(text)
        total += len(text.encode())
        index += 1
    return "\n".join(parts).encode()[:size]


def revisions_after(put: int, sections: int, edit: str) -> dict[int, int]:
    if edit == "all":
        return dict.fromkeys(range(sections), put)
    return {i: put // sections + (1 if i < put % sections else 0) for i in range(sections)}


async def stored(pool: asyncpg.Pool, user_id: object) -> dict[str, int]:
    """What the user stores: rows, the quota's count, and the tables' compacted sizes."""
    for table in TABLES:
        await pool.execute(f"VACUUM FULL {table}")
    sizes = {
        table: await pool.fetchval("SELECT pg_total_relation_size($1::regclass)", table)
        for table in TABLES
    }
    return {
        "chunk_rows": await pool.fetchval(
            "SELECT count(*) FROM file_chunks WHERE user_id = $1", user_id
        ),
        "content_rows": await pool.fetchval("SELECT count(*) FROM file_contents"),
        "quota_counts": await pool.fetchval(
            "SELECT stored_bytes FROM users WHERE id = $1", user_id
        ),
        **{f"{table}_bytes": size for table, size in sizes.items()},
        "total_bytes": sum(sizes.values()),
    }


async def measure(stack: Stack, size: int, puts: int, edit: str) -> dict[str, dict[str, int]]:
    pool = await create_pool(stack.database_url)
    user, key = await users.create_user(pool, name="update-storage")
    headers = {"Authorization": f"Bearer {key}"}
    sections = document(size, {}).count(b"\n## ")
    async with httpx.AsyncClient(base_url=stack.gateway_url, headers=headers, timeout=120) as c:
        first = document(size, {})
        response = await c.post("/v1/files", files=[("files", ("handbook.md", first))])
        response.raise_for_status()
        file_id = response.json()["items"][0]["id"]
        await follow_until_settled(c, file_id)
        results = {"after upload": await stored(pool, user.id)}
        began = time.monotonic()
        for put in range(1, puts + 1):
            data = document(size, revisions_after(put, sections, edit))
            response = await c.put(f"/v1/files/{file_id}", files=[("files", ("handbook.md", data))])
            assert response.status_code == 202, (put, response.text)
            await follow_until_settled(c, file_id)
            record = (await c.get(f"/v1/files/{file_id}")).json()
            assert record["live_version"] == put + 1, record
        results[f"after {puts} PUTs ({time.monotonic() - began:.0f} s)"] = await stored(
            pool, user.id
        )
    await pool.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puts", type=int, default=50)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--edit", choices=("section", "all"), default="section")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), CHEAP_EMBEDDINGS) as stack,
    ):
        results = asyncio.run(measure(stack, args.size, args.puts, args.edit))
    for moment, figures in results.items():
        print(f"{moment}: " + ", ".join(f"{k}={v:,}" for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    main()
