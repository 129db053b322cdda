"""Context build latency with 10,000 journal entries and 5,000 file chunks (target p95 < 50 ms):
end to end over NATS (request_context → context service → reply) and in-process assembly.

Run:  .venv/bin/python -m tests.benchmarks.context_build [--turns 10000] [--chunks 5000]
                                                         [--questions 200]
Fixtures are bulk-inserted (SciFact abstracts as chunks, 100 per file; synthetic turns); the
questions are typical chat questions of 5-15 words: half SciFact claims (file context), half
questions about past decisions (journal, P5). The machine's load average is printed with the
figures: latencies measured on a busy machine are not comparable.
"""

import argparse
import asyncio
import gc
import gzip
import json
import os
import random
import tempfile
import time
from pathlib import Path

from faststream.nats import NatsBroker

from services.context.assemble import build_context
from shared.bus import create_broker
from shared.context_client import request_context
from shared.contracts import ContextRequest
from shared.db import conversations, create_pool, users
from shared.launcher.stack import Stack
from tests.benchmarks.journal_search import percentile, questions
from tests.benchmarks.memory_fixtures import (
    insert_files,
    insert_turns,
    journal_index_rebuilt,
    synthetic_turns,
)
from tests.benchmarks.scifact import DATA
from tests.helpers import own_stack

CHUNKS_PER_FILE = 100


def scifact(chunks: int, claims: int) -> tuple[list[tuple[str, list[str]]], list[str]]:
    with gzip.open(DATA / "corpus.jsonl.gz", "rt") as lines:
        abstracts = [f"{d['title']}\n{d['text']}" for d in map(json.loads, lines)][:chunks]
    files = [
        (f"papers-{i // CHUNKS_PER_FILE:03}.txt", abstracts[i : i + CHUNKS_PER_FILE])
        for i in range(0, len(abstracts), CHUNKS_PER_FILE)
    ]
    texts = [q["text"] for q in map(json.loads, (DATA / "queries.jsonl").open())]
    typical = [t for t in texts if 5 <= len(t.split()) <= 15]
    return files, random.Random(3).sample(typical, claims)


async def timed(calls: list, repeat: int = 1) -> list[float]:
    latencies = []
    for call in calls:
        for _ in range(repeat):
            started = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - started)
    return latencies


async def run(stack: Stack, turns: int, chunks: int, count: int) -> dict[str, list[float]]:
    pool = await create_pool(stack.database_url)
    user, _ = await users.create_user(pool, name="context-bench")
    files, claims = scifact(chunks, count // 2)
    async with pool.acquire() as conn, journal_index_rebuilt(conn):
        await insert_turns(conn, user.id, synthetic_turns(turns))
    await insert_files(pool, user.id, files)
    await pool.execute("VACUUM ANALYZE")  # the steady state of a live database
    asked = [q for pair in zip(claims, questions(count - len(claims)), strict=False) for q in pair]
    # each question is asked in its persona's latest conversation, as the chat does
    latest = {
        persona: await conversations.latest_with_persona(pool, user_id=user.id, persona=persona)
        for persona in ("gunnar", "vlad")
    }
    requests = []
    for i, q in enumerate(asked):
        persona = random.Random(i).choice(["gunnar", "vlad"])
        conversation = latest[persona]["id"] if latest[persona] else None
        requests.append(
            ContextRequest(user_id=user.id, persona=persona, query=q, conversation_id=conversation)
        )
    broker: NatsBroker = create_broker(stack.nats_url)
    await broker.connect()
    try:
        for request in requests[:10]:  # warm both paths up
            await request_context(broker, request, timeout=10)
            await build_context(pool, request)
        bundles = [await request_context(broker, r, timeout=10) for r in requests]
        # this process holds the fixtures and 200 bundles, which made its own full collections
        # take 60-190 ms and land in a timed request (a client's artefact, not the service's)
        gc.collect()
        gc.freeze()
        load_before = os.getloadavg()[0]
        results = {
            "over NATS": await timed(
                [lambda r=r: request_context(broker, r, timeout=10) for r in requests]
            ),
            "in process": await timed([lambda r=r: build_context(pool, r) for r in requests]),
        }
        load_after = os.getloadavg()[0]
    finally:
        await broker.stop()
        await pool.close()
    recalled = sum(1 for b in bundles if any(s.name == "recalled" and s.items for s in b.sections))
    with_files = sum(1 for b in bundles if any(s.name == "files" and s.items for s in b.sections))
    print(
        f"{len(bundles)} questions: {recalled} with P5 items, {with_files} with file passages,"
        f" mean {sum(b.total_tokens for b in bundles) / len(bundles):.0f} tokens"
        f" of a {bundles[0].cap_tokens} cap; 1-minute load average {load_before:.2f} ->"
        f" {load_after:.2f} over the timed runs, on {os.cpu_count()} cores"
    )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--chunks", type=int, default=5_000)
    parser.add_argument("--questions", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, own_stack(Path(data_dir)) as stack:
        results = asyncio.run(run(stack, args.turns, args.chunks, args.questions))
    print(f"{'context build':<14} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for name, values in results.items():
        cells = [1000 * percentile(values, q) for q in (0.5, 0.95, 0.99)]
        print(f"{name:<14} " + " ".join(f"{c:>8.1f}" for c in cells))


if __name__ == "__main__":
    main()
