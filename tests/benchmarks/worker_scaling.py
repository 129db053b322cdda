"""Compressor scaling on a latency-bound model: 1, 2, 4 and 8 compressor processes on the same
200-file corpus while every chat call waits a fixed `--latency` at the local fake endpoint.

The corpus (tests/benchmarks/corpus.py) is half strategic memos and a tenth interview transcripts
(542 strategic chunks for the compressor: 2A + 2B each), the rest factual reports and logs.
Embeddings stay cheap and local (ARTISAN_EMBED_PROVIDER=local, hashed words): the question is
the compressor, not the embedder. The fake server counts every call by prompt, the evidence that
each strategic chunk was compressed once (2A = 2B = strategic chunks). CPU seconds of each
process show whether a core, not the model, became the limit, and the mean number of files in
each stage shows where files wait. On a loaded 2-core machine, 0.5 s is not enough for the
model to dominate; 2 s is (docs/benchmark-history.md).

Run:  .venv/bin/python -m tests.benchmarks.worker_scaling [--latency 2] [--compressors 1 2 4 8]
      [--chunker-slots 32]
"""

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil

from shared.launcher.stack import Stack
from tests.benchmarks.corpus import generate_corpus
from tests.fakes.llm_responder import prompt_name, realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, own_stack

FILES = 200
BATCH = 100  # files per upload request (the gateway's limit)
COMPRESSOR_PROMPTS = ("artisan_cut_2a", "artisan_cut_2b", "summarise_file")  # its calls
CHUNKER_JOIN_SECONDS = 5.0  # for the extra chunker process to start and join its consumer


async def upload_all(client: httpx.AsyncClient, corpus: list[tuple[str, bytes]]) -> set[str]:
    ids: set[str] = set()
    for start in range(0, len(corpus), BATCH):
        parts = [("files", (name, data)) for name, data in corpus[start : start + BATCH]]
        response = await client.post("/v1/files", files=parts, timeout=300)
        response.raise_for_status()
        ids |= {record["id"] for record in response.json()["items"]}
    return ids


async def wait_all_settled(database_url: str, count: int) -> tuple[Counter[str], dict]:
    """Poll the files table (every 0.2 s) until `count` files are there and none is processing;
    the statuses and the mean number of files in each stage while they were processed (where
    files wait shows what limits the pipeline)."""
    conn = await asyncpg.connect(database_url)
    stages: Counter[str] = Counter()
    polls = 0
    try:
        while True:
            rows = await conn.fetch(
                "SELECT status, processing_stage, count(*) AS n FROM files"
                " GROUP BY status, processing_stage"
            )
            statuses: Counter[str] = Counter()
            for row in rows:
                statuses[row["status"]] += row["n"]
                if row["status"] == "processing":
                    stages[row["processing_stage"]] += row["n"]
            polls += 1
            if statuses["processing"] == 0 and sum(statuses.values()) == count:
                return statuses, {stage: round(n / polls, 1) for stage, n in stages.items()}
            await asyncio.sleep(0.2)
    finally:
        await conn.close()


async def strategic_chunks(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        query = "SELECT count(*) FROM file_chunks WHERE chunk_type = 'strategic'"
        return await conn.fetchval(query)
    finally:
        await conn.close()


def add_chunker(stack: Stack, slots: int) -> None:
    """A second chunker working on `slots` files (and model calls) at once, as an operator gives
    the chunker's deployment its own settings: 1A and 1B wait on the model too, and the first
    chunker's 8 at once would cap the compressors at its pace. One process, not several: each
    holds database connections, and the embedded PostgreSQL allows 100."""
    env = stack.supervisor.env
    saved = dict(env)
    env.update(ARTISAN_WORKER_CONCURRENCY=str(slots), ARTISAN_LLM_CONCURRENCY=str(slots))
    try:
        stack.supervisor.start("chunker")
    finally:
        env.clear()
        env.update(saved)
    time.sleep(CHUNKER_JOIN_SECONDS)


def cpu_seconds(stack: Stack) -> dict[str, float]:
    """CPU time (user + system) of each service process so far, by label (compressor-3)."""
    used: dict[str, float] = {}
    for service in stack.supervisor.processes:
        try:
            times = psutil.Process(service.process.pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        used[service.label] = times.user + times.system
    return used


async def process_corpus(stack: Stack, corpus: list[tuple[str, bytes]]) -> dict[str, Any]:
    async with await client_for_new_user(stack, "scaling") as client:
        cpu_before = cpu_seconds(stack)
        started = time.monotonic()
        ids = await upload_all(client, corpus)
        statuses, stages = await wait_all_settled(stack.database_url, len(ids))
        elapsed = time.monotonic() - started
    cpu_after = cpu_seconds(stack)
    cpu = {label: cpu_after[label] - cpu_before.get(label, 0.0) for label in cpu_after}
    return {"wall_s": elapsed, "statuses": dict(statuses), "stages": stages, "cpu_s": cpu}


def run(
    latency: float,
    compressors: int,
    chunker_slots: int,
    corpus: list[tuple[str, bytes]],
    logs: Path | None = None,
) -> dict[str, Any]:
    with (
        FakeModelServer(realistic_responder, latency=latency) as server,
        tempfile.TemporaryDirectory() as data_dir,
    ):
        env = server.stack_env(embeddings=False)  # hashed: the compressor is the question
        with own_stack(Path(data_dir), env, compressors) as stack:
            if chunker_slots:
                add_chunker(stack, chunker_slots)
            result = asyncio.run(process_corpus(stack, corpus))
            result["strategic_chunks"] = asyncio.run(strategic_chunks(stack.database_url))
        if logs:  # the services' logs outlive the temporary directory
            shutil.copytree(Path(data_dir) / "logs", logs / f"compressors-{compressors}")
        result["calls"] = Counter(prompt_name(request.json) for request in server.chat_requests)
        result["max_calls_in_flight"] = server.max_in_flight
    return result


def report(compressors: int, latency: float, result: dict[str, Any], baseline: float | None) -> str:
    files_per_s = FILES / result["wall_s"]
    speedup = f"{baseline / result['wall_s']:.2f}x" if baseline else "1.00x"
    calls, chunks = result["calls"], result["strategic_chunks"]
    once = calls["artisan_cut_2a"] == calls["artisan_cut_2b"] == chunks
    cpu = result["cpu_s"]
    compressor_cpu = [f"{cpu[k]:.1f}" for k in sorted(cpu) if k.startswith("compressor")]
    busiest = max(cpu, key=cpu.get)
    compressor_calls = sum(calls[name] for name in COMPRESSOR_PROMPTS)
    return (
        f"compressors={compressors}: {result['wall_s']:.1f} s, {files_per_s:.2f} files/s,"
        f" speed-up {speedup}; {result['statuses']}; strategic chunks {chunks},"
        f" 2A {calls['artisan_cut_2a']} 2B {calls['artisan_cut_2b']} (once each: {once});"
        f" all calls {sum(calls.values())} {dict(calls)}; most calls in flight"
        f" {result['max_calls_in_flight']}; CPU s: compressors {compressor_cpu},"
        f" busiest {busiest} {cpu[busiest]:.1f}; files by stage (mean) {result['stages']};"
        f" compressor calls in flight (mean) {compressor_calls * latency / result['wall_s']:.1f};"
        f" load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--compressors", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument(
        "--chunker-slots",
        type=int,
        default=32,
        help="files at once of a second chunker process, the same in every run (0: none)",
    )
    parser.add_argument("--logs", type=Path, help="keep each run's service logs here")
    args = parser.parse_args()
    corpus = generate_corpus(FILES)
    baseline: float | None = None
    for compressors in args.compressors:
        result = run(args.latency, compressors, args.chunker_slots, corpus, args.logs)
        print(
            f"latency={args.latency}s " + report(compressors, args.latency, result, baseline),
            flush=True,
        )
        baseline = baseline or result["wall_s"]


if __name__ == "__main__":
    main()
