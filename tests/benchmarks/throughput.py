"""Throughput against its floor: SciFact abstracts through the running system, and the same
documents through the same local providers in one process with no bus and no database.

Run:  .venv/bin/python -m tests.benchmarks.throughput [--docs 1000] [--floor-docs N]
                                    [--per-request 100]
                                    [--config quickstart hashed] [--compressors 1]
                                    [--chunkers N] [--embedders N] [--env K=V ...]
For each configuration (configurations.py: the quickstart's first, then the hashed embedder's),
prints the floor's docs/s, the system's docs/s (first upload sent → last file ready), and their
ratio, measured in one run. `--docs 0` takes all 5,183 abstracts.
"""

import argparse
import asyncio
import gzip
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
import httpx

from services.chunker.chunks import plan_chunks
from services.extractor.extract import extract_text
from shared.config import REPO_ROOT
from shared.domain import ChunkType
from shared.launcher.stack import Stack
from shared.providers import registry
from tests.benchmarks.configurations import (
    Configuration,
    add_configuration_arguments,
    chosen,
    stack_for,
    use_in_this_process,
)
from tests.helpers import client_for_new_user

SCIFACT = REPO_ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl.gz"


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _read(path: str) -> str:
    try:
        return Path(path).read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def cpu_seconds_by_part(data_dir: str) -> dict[int, tuple[str, float]]:
    """CPU seconds so far of every process of the stack in `data_dir` (services by name,
    NATS, PostgreSQL with its backends), keyed by pid."""
    stats: dict[int, tuple[int, str, float]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _read(f"/proc/{entry.name}/stat").rsplit(")", 1)[-1].split()
            if len(fields) > 13:
                cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
                stats[int(entry.name)] = (int(fields[1]), _read(f"/proc/{entry.name}/cmdline"), cpu)

    def part(pid: int) -> str | None:
        seen = 0
        while pid in stats and seen < 20:
            ppid, cmdline, _ = stats[pid]
            if data_dir in cmdline or data_dir in _read(f"/proc/{pid}/environ"):
                for name in ("gateway", "extractor", "chunker", "compressor", "embedder"):
                    if f"services.{name}." in cmdline:
                        return name
                for name in ("postgres", "nats-server", "forkserver"):
                    if name in cmdline:
                        return name
                return "other"
            pid, seen = ppid, seen + 1
        return None

    found = {pid: (part(pid), cpu) for pid, (_, _, cpu) in stats.items()}
    return {pid: (name, cpu) for pid, (name, cpu) in found.items() if name}


def cpu_spent(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> dict[str, float]:
    spent: dict[str, float] = {}
    for pid, (name, cpu) in after.items():
        spent[name] = spent.get(name, 0.0) + cpu - before.get(pid, (name, 0.0))[1]
    return dict(sorted(spent.items(), key=lambda kv: -kv[1]))


def load_abstracts(count: int) -> list[tuple[str, bytes]]:
    with gzip.open(SCIFACT, "rt") as lines:
        docs = [json.loads(line) for line in lines]
    docs = docs[:count] if count else docs
    return [(f"{d['_id']}.txt", f"{d['title']}\n\n{d['text']}\n".encode()) for d in docs]


async def floor_docs_per_second(docs: list[tuple[str, bytes]]) -> float:
    """Every step a file takes, the same providers, one process, no bus, no database."""
    classifier, chunker = registry.classifier(), registry.chunker()
    compressor, verifier = registry.compressor(), registry.verifier()
    embedder, summariser = registry.embedder(), registry.summariser()
    started = time.perf_counter()
    for name, data in docs:
        text = extract_text(data, name)
        file_type = await classifier.classify_file(text)
        planned = await plan_chunks(text, file_type, chunker, classifier)
        inputs = []
        for chunk in planned:
            if chunk.chunk_type == ChunkType.STRATEGIC.value:
                draft = await compressor.compress(chunk.text, chunk.title)
                cut = await verifier.verify(chunk.text, chunk.title, draft)
                inputs.append(cut.decision_arc_summary)
            else:
                inputs.append(f"{chunk.title}\n{chunk.text}")
        await embedder.embed(inputs)
        sections = [(c.title, c.summary or c.text[:300]) for c in planned]
        await summariser.summarise_file(name, sections)
    return len(docs) / (time.perf_counter() - started)


async def upload_in_requests(
    client: httpx.AsyncClient, docs: list[tuple[str, bytes]], per_request: int
) -> None:
    limit = asyncio.Semaphore(4)

    async def send(batch: list[tuple[str, bytes]]) -> None:
        async with limit:
            parts = [("files", (name, data, "text/plain")) for name, data in batch]
            response = await client.post("/v1/files", files=parts, timeout=120)
            response.raise_for_status()

    batches = [docs[i : i + per_request] for i in range(0, len(docs), per_request)]
    await asyncio.gather(*(send(b) for b in batches))


_ANY_PROCESSING = """
    SELECT EXISTS (SELECT FROM files
                   WHERE status = 'processing' AND processing_stage = 'queued')
        OR EXISTS (SELECT FROM files
                   WHERE status = 'processing' AND processing_stage <> 'queued')"""


async def wait_all_settled(database_url: str, count: int) -> dict[str, int]:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    try:
        while True:
            # through the dispatcher's partial indexes: polling costs the database little
            if not await pool.fetchval(_ANY_PROCESSING):
                rows = await pool.fetch("SELECT status, count(*) AS n FROM files GROUP BY status")
                by_status = {r["status"]: r["n"] for r in rows}
                if sum(by_status.values()) >= count:
                    return by_status
            await asyncio.sleep(0.1)
    finally:
        await pool.close()


# the database's work, from its own statistics: transactions, rows read (sequential scans
# and index fetches), rows written
_DATABASE_WORK = """
    SELECT d.xact_commit + d.xact_rollback AS transactions,
           (SELECT sum(seq_tup_read) FROM pg_stat_user_tables) AS rows_scanned,
           (SELECT sum(coalesce(idx_tup_fetch, 0)) FROM pg_stat_user_tables) AS rows_fetched,
           d.tup_inserted + d.tup_updated + d.tup_deleted AS rows_written,
           d.sessions AS connections
    FROM pg_stat_database d WHERE d.datname = current_database()"""


# where the rows are read: each table's sequential scans and each index's fetches
_READS_BY_RELATION = """
    SELECT relname || ' (seq)' AS relation, seq_tup_read AS n FROM pg_stat_user_tables
    UNION ALL
    SELECT indexrelname, idx_tup_fetch FROM pg_stat_user_indexes"""


async def database_work(database_url: str) -> dict[str, float]:
    conn = await asyncpg.connect(database_url)
    try:
        work = {k: float(v) for k, v in (await conn.fetchrow(_DATABASE_WORK)).items()}
        reads = await conn.fetch(_READS_BY_RELATION)
        return work | {f"read {r['relation']}": float(r["n"] or 0) for r in reads}
    finally:
        await conn.close()


async def system_docs_per_second(
    stack: Stack, data_dir: str, docs: list[tuple[str, bytes]], per_request: int
) -> tuple[float, dict[str, int], dict[str, float], dict[str, float]]:
    async with await client_for_new_user(stack, "throughput") as client:
        cpu_before = cpu_seconds_by_part(data_dir)
        db_before = await database_work(stack.database_url)
        started = time.perf_counter()
        await upload_in_requests(client, docs, per_request)
        statuses = await wait_all_settled(stack.database_url, len(docs))
        elapsed = time.perf_counter() - started
        spent = cpu_spent(cpu_before, cpu_seconds_by_part(data_dir))
        await asyncio.sleep(1)  # the statistics collector reports every second at most
        db_after = await database_work(stack.database_url)
        per_doc = {k: (db_after[k] - db_before[k]) / len(docs) for k in db_after}
        return len(docs) / elapsed, statuses, spent, per_doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000, help="0: all 5,183")
    parser.add_argument("--per-request", type=int, default=100)
    parser.add_argument("--floor-docs", type=int, default=0, help="the floor's (0: as --docs)")
    add_configuration_arguments(parser)
    args = parser.parse_args()
    # a benchmark stopped by `timeout` or kill still stops the stack it started
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    docs = load_abstracts(args.docs)
    for config in chosen(args):
        measure(config, args, docs)


def measure(config: Configuration, args: argparse.Namespace, docs: list[tuple[str, bytes]]) -> None:
    use_in_this_process(config, args)  # the floor's providers are the services'
    floor = asyncio.run(floor_docs_per_second(docs[: args.floor_docs or len(docs)]))
    with (
        tempfile.TemporaryDirectory() as data_dir,
        stack_for(config, args, Path(data_dir)) as stack,
    ):
        system, statuses, spent, db_per_doc = asyncio.run(
            system_docs_per_second(stack, data_dir, docs, args.per_request)
        )
    print(f"documents:                {len(docs)} ({statuses})")
    print(f"in-process floor:         {floor:.1f} docs/s")
    print(f"system, upload → ready:   {system:.1f} docs/s ({len(docs) / system:.1f} s)")
    print(f"ratio system / floor:     {system / floor:.2f}")
    print("CPU seconds by part:     ", {k: round(v, 1) for k, v in spent.items()})
    print(f"CPU per document:         {1000 * sum(spent.values()) / len(docs):.0f} ms")
    totals = {k: round(v, 1) for k, v in db_per_doc.items() if not k.startswith("read ")}
    print("database per document:   ", totals)
    reads = sorted(((v, k[5:]) for k, v in db_per_doc.items() if k.startswith("read ")))[::-1]
    print("rows read per document:  ", {k: round(v, 1) for v, k in reads[:8] if v >= 1}, flush=True)


if __name__ == "__main__":
    main()
