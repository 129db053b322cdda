"""Scale: 100,000 chunks for one user (and a few smaller users beside them) through the running
system, then search and context-build latency at that size, and how the vector search runs there.

Run:  .venv/bin/python -m tests.benchmarks.scale [--chunks 100000] [--others 3]
                                                 [--other-chunks 2000] [--queries 100]
                                                 [--ingest-limit SECONDS]
                                                 [--config quickstart hashed]
Files are markdown collections of 50 sections (SciFact abstracts, abstracts made of SciFact
sentences, decision memos), uploaded several to a request. Prints chunks/s and upload → all
ready, each part's CPU seconds, then GET /v1/search p50/p95/p99 for the large user and a small
one, GET /v1/context/preview p50/p95, and the vector query's plan and recall against an exact
scan (tests/benchmarks/scale_search.py). With --ingest-limit, the pipeline is paused once that
long has passed and search is measured at the size reached. Configurations (configurations.py):
the quickstart's (MiniLM) first, then the hashed embedder's, each with
ARTISAN_SEARCH_VECTOR_WEIGHT=2 so that search queries the vector index as with a real model;
`--config hashed` alone for the full 100,000 chunks in minutes (MiniLM takes hours for them on
2 cores: pair it with --ingest-limit).
"""

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from uuid import UUID

import asyncpg
import httpx

from shared.db import create_pool, users
from shared.launcher.stack import Stack
from tests.benchmarks.configurations import (
    add_configuration_arguments,
    chosen,
    stack_for,
    use_in_this_process,
)
from tests.benchmarks.scale_corpus import Sections, collections, questions, scifact_abstracts
from tests.benchmarks.scale_search import measure_search
from tests.benchmarks.throughput import cpu_seconds_by_part, cpu_spent

MAX_REQUEST_BYTES = 900_000  # under the gateway's 1 MiB body limit
UPLOADS_IN_FLIGHT = 4
PIPELINE = ("extractor", "chunker", "compressor", "embedder")


async def upload(client: httpx.AsyncClient, prefix: str, files: list[bytes]) -> None:
    """Every file, as many to a request as fit under the body limit, a few requests at once."""
    batches: list[list[tuple[str, bytes]]] = [[]]
    for number, data in enumerate(files, 1):
        if sum(len(d) for _, d in batches[-1]) + len(data) > MAX_REQUEST_BYTES:
            batches.append([])
        batches[-1].append((f"{prefix}-{number:05d}.md", data))
    limit = asyncio.Semaphore(UPLOADS_IN_FLIGHT)

    async def send(batch: list[tuple[str, bytes]]) -> None:
        async with limit:
            parts = [("files", (name, data, "text/markdown")) for name, data in batch]
            response = await client.post("/v1/files", files=parts, timeout=300)
            response.raise_for_status()

    await asyncio.gather(*(send(batch) for batch in batches if batch))


async def wait_until_settled(
    pool: asyncpg.Pool, files: int, started: float, limit: float
) -> dict[str, int]:
    """Polls the files table until every file is ready or failed, or `limit` seconds have
    passed (0: no limit); a line every 30 s says how far the pipeline is."""
    said = time.monotonic()
    while True:
        row = await pool.fetchrow(
            """SELECT count(*) AS files,
                      count(*) FILTER (WHERE status = 'processing') AS processing,
                      count(*) FILTER (WHERE status = 'failed') AS failed,
                      coalesce(sum(processed_chunks), 0) AS chunks FROM files"""
        )
        out_of_time = limit and time.monotonic() - started > limit
        if (row["files"] >= files and not row["processing"]) or out_of_time:
            return {
                "ready": row["files"] - row["failed"] - row["processing"],
                "failed": row["failed"],
                "processing": row["processing"],
            }
        if time.monotonic() - said > 30:
            said = time.monotonic()
            elapsed = time.monotonic() - started
            print(
                f"  {elapsed:6.0f} s: {row['files'] - row['processing']}/{files} files settled,"
                f" {row['chunks']} chunks processed",
                flush=True,
            )
        await asyncio.sleep(1)


async def ingest(stack: Stack, data_dir: str, args: argparse.Namespace) -> dict:
    pool = await create_pool(stack.database_url)
    abstracts = scifact_abstracts()
    owners = [("large", args.chunks)] + [
        (f"small{i}", args.other_chunks) for i in range(args.others)
    ]
    keys: dict[str, tuple[UUID, str]] = {}
    uploads = []
    for seed, (name, chunks) in enumerate(owners):
        user, key = await users.create_user(pool, name=name)
        keys[name] = (user.id, key)
        files = collections(chunks, iter(Sections(abstracts, seed)), name)
        uploads.append((key, name, files))
    total_files = sum(len(files) for _, _, files in uploads)
    print(f"{total_files} files for {len(owners)} users", flush=True)
    cpu_before = cpu_seconds_by_part(data_dir)
    started = time.monotonic()

    async def send_all(key: str, name: str, files: list[bytes]) -> None:
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=stack.gateway_url, headers=headers) as client:
            await upload(client, name, files)

    await asyncio.gather(*(send_all(*u) for u in uploads))
    uploaded_s = time.monotonic() - started
    statuses = await wait_until_settled(pool, total_files, started, args.ingest_limit)
    elapsed = time.monotonic() - started
    if statuses["processing"]:
        pause_pipeline(stack)  # search is then measured at the size reached, without ingest
    spent = cpu_spent(cpu_before, cpu_seconds_by_part(data_dir))
    stored = {
        r["user_id"]: r["n"]
        for r in await pool.fetch(
            "SELECT user_id, count(*) AS n FROM file_chunks WHERE searchable GROUP BY user_id"
        )
    }
    await pool.close()
    all_chunks = sum(stored.values())
    return {
        "keys": keys,
        "chunks": {name: stored.get(user_id, 0) for name, (user_id, _) in keys.items()},
        "files": statuses,
        "upload_s": uploaded_s,
        "all_ready_s": elapsed,
        "chunks_per_s": all_chunks / elapsed,
        "cpu_s": {part: round(seconds) for part, seconds in spent.items()},
    }


def pause_pipeline(stack: Stack) -> None:
    """SIGSTOP the pipeline's workers (the gateway and the context service go on)."""
    for name in PIPELINE:
        for service in stack.supervisor.running(name):
            os.kill(service.process.pid, signal.SIGSTOP)
    print("ingest limit reached: the pipeline is paused", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000, help="the large user's chunks")
    parser.add_argument("--others", type=int, default=3, help="smaller users beside it")
    parser.add_argument("--other-chunks", type=int, default=2_000, help="each smaller user's")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--ingest-limit", type=float, default=0, help="seconds; then search at the size reached"
    )
    add_configuration_arguments(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # `timeout` still stops the stack
    for config in chosen(args):
        weight = {"ARTISAN_SEARCH_VECTOR_WEIGHT": "2"}
        # this process embeds the EXPLAIN's questions as the services do
        use_in_this_process(config, args, **weight)
        with (
            tempfile.TemporaryDirectory() as data_dir,
            stack_for(config, args, Path(data_dir), **weight) as stack,
        ):
            ingested = asyncio.run(ingest(stack, data_dir, args))
            keys = ingested.pop("keys")
            for name, value in ingested.items():
                print(
                    f"{name + ':':14}{value:.1f}"
                    if isinstance(value, float)
                    else f"{name}: {value}"
                )
            asyncio.run(measure_search(stack, keys, questions(args.queries)))


if __name__ == "__main__":
    main()
