"""Ingestion benchmark: a generated corpus of ~200 mixed documents through the real system.

Run:  .venv/bin/python -m tests.benchmarks.ingest [--files 200] [--compressors 1 4]
                                                  [--concurrency 1 8]
Prints files/s, chunks/s, upload→ready p50/p95, SSE event delay p50/p99, and the
upload→ready time of a 65,000-character interview transcript on an idle system.
"""

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from shared.db import create_pool, users
from tests.benchmarks.corpus import generate_corpus
from tests.fixtures.transcripts import interview_transcript
from tests.helpers import follow_until_settled, own_stack, upload


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


class FollowerProcess:
    """The SSE client in its own process, so the uploader's work does not delay what it sees."""

    def __init__(self, url: str, api_key: str, count: int) -> None:
        # a file, not a pipe: a full pipe would stall the follower and inflate the delays
        self.output = tempfile.TemporaryFile("w+")  # noqa: SIM115 (lives as long as the follower)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.benchmarks.sse_follower", url, api_key, str(count)],
            stdout=self.output,
            text=True,
        )
        while not self.output.tell():
            time.sleep(0.01)  # the first line says the stream is open

    def events(self) -> list[dict]:
        self.process.wait(timeout=600)
        self.output.seek(0)
        lines = [json.loads(line) for line in self.output.read().splitlines()]
        return [line for line in lines if "file_id" in line]


async def upload_all(
    client: httpx.AsyncClient, corpus: list[tuple[str, bytes]], concurrency: int
) -> dict[str, float]:
    """Upload every document, `concurrency` at a time; returns each file's send time."""
    sent_at: dict[str, float] = {}
    limit = asyncio.Semaphore(concurrency)

    async def send(name: str, data: bytes) -> None:
        async with limit:
            started = time.time()
            response = await client.post("/v1/files", files=[("files", (name, data))])
            response.raise_for_status()
            sent_at[response.json()["items"][0]["id"]] = started

    await asyncio.gather(*(send(name, data) for name, data in corpus))
    return sent_at


async def measure(
    url: str, database_url: str, corpus: list[tuple[str, bytes]], concurrency: int
) -> dict:
    pool = await create_pool(database_url)
    user, key = await users.create_user(pool, name="bench")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        transcript = await transcript_latency(client)
        follower = FollowerProcess(url, key, len(corpus))
        begin = time.time()
        sent_at = await upload_all(client, corpus, concurrency)
        events = await asyncio.to_thread(follower.events)
    transcript_chunks = await pool.fetchval(
        "SELECT coalesce(sum(total_chunks), 0) FROM files WHERE user_id = $1"
        " AND filename = 'ACD179.md'",
        user.id,
    )
    chunks = (
        await pool.fetchval("SELECT count(*) FROM file_chunks WHERE user_id = $1", user.id)
        - transcript_chunks
    )
    await pool.close()
    ready_at = {e["file_id"]: e["received"] for e in events if e["status"] == "ready"}
    failed = {e["file_id"] for e in events if e["status"] == "failed"}
    delays = [e["delay"] for e in events]
    elapsed = max(ready_at.values()) - begin
    latencies = [ready_at[f] - sent_at[f] for f in sent_at if f in ready_at]
    return {
        "files": len(sent_at),
        "failed": len(failed),
        "chunks": chunks,
        "files_per_s": len(sent_at) / elapsed,
        "chunks_per_s": chunks / elapsed,
        "ready_p50_s": percentile(latencies, 0.5),
        "ready_p95_s": percentile(latencies, 0.95),
        "sse_delay_p50_ms": 1000 * percentile(delays, 0.5),
        "sse_delay_p99_ms": 1000 * percentile(delays, 0.99),
        "transcript_65k_ready_s": transcript,
    }


async def transcript_latency(client: httpx.AsyncClient, runs: int = 3) -> float:
    """Median upload→ready of the 65,000-character transcript (fresh content each run)."""
    timings = []
    for run in range(runs):
        text = interview_transcript() + f"\nBOSS: Thanks, everyone. (run {run} {time.time()})\n"
        started = time.monotonic()
        await follow_until_settled(client, (await upload(client, "ACD179.md", text))["id"])
        timings.append(time.monotonic() - started)
    return statistics.median(timings)


def run(files: int, compressors: int, concurrency: int) -> dict:
    with (
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), None, compressors) as stack,
    ):
        return asyncio.run(
            measure(stack.gateway_url, stack.database_url, generate_corpus(files), concurrency)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--compressors", type=int, nargs="+", default=[1, 4])
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[8], help="uploads in flight at once"
    )
    args = parser.parse_args()
    for compressors in args.compressors:
        for concurrency in args.concurrency:
            report(compressors, concurrency, run(args.files, compressors, concurrency))


def report(compressors: int, concurrency: int, result: dict) -> None:
    print(
        f"compressors={compressors} concurrency={concurrency}: "
        + ", ".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items()
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
