"""Ingestion benchmark: a generated corpus of ~200 mixed documents through the real system.

Run:  .venv/bin/python -m tests.benchmarks.ingest [--files 200] [--config quickstart hashed]
                                                  [--concurrency 1 8]
Prints files/s, chunks/s, upload→ready p50/p95, SSE event delay p50/p99, and the
upload→ready time of a 65,000-character interview transcript on an idle system.

An event's delay runs from its row's updated_at (the step's UPDATE, just before the commit) to
its receipt by an SSE client in a process of its own. A NATS client in another process sees the
same events leave the bus, which splits the delay: commit → bus (the worker's publish) and
bus → SSE client (the gateway's fan-out and the HTTP stream).
"""

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx

from shared.db import create_pool, users
from shared.launcher.stack import Stack
from tests.benchmarks.configurations import add_configuration_arguments, chosen, stack_for
from tests.benchmarks.corpus import generate_corpus
from tests.fixtures.transcripts import interview_transcript
from tests.helpers import follow_until_settled, upload


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


class FollowerProcess:
    """A follower (SSE or bus) in its own process, so the uploader's work does not delay what it
    sees."""

    def __init__(self, module: str, *args: str) -> None:
        # a file, not a pipe: a full pipe would stall the follower and inflate the delays
        self.output = tempfile.TemporaryFile("w+")  # noqa: SIM115 (lives as long as the follower)
        self.process = subprocess.Popen(
            [sys.executable, "-m", f"tests.benchmarks.{module}", *args],
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


def split_delays(sse: list[dict], bus: list[dict]) -> dict[str, list[float]]:
    """Each SSE event's delay in two: commit → seen on the bus, and bus → SSE client; and the
    first part by the stage the event announces."""
    left_bus = {(e["file_id"], _instant(e["updated_at"])): e["received"] for e in bus}
    split: dict[str, list[float]] = {"upstream": [], "gateway": []}
    for event in sse:
        seen = left_bus.get((event["file_id"], round(event["committed"], 6)))
        if seen is not None:
            split["upstream"].append(seen - event["committed"])
            split["gateway"].append(event["received"] - seen)
            split.setdefault(f"upstream {event['stage']}", []).append(seen - event["committed"])
    return split


def _instant(iso: str) -> float:
    return round(datetime.fromisoformat(iso).timestamp(), 6)


async def measure(stack: Stack, corpus: list[tuple[str, bytes]], concurrency: int) -> dict:
    url, database_url = stack.gateway_url, stack.database_url
    pool = await create_pool(database_url)
    user, key = await users.create_user(pool, name="bench")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        transcript = await transcript_latency(client)
        on_bus = FollowerProcess("bus_follower", stack.nats_url, str(user.id), str(len(corpus)))
        follower = FollowerProcess("sse_follower", url, key, str(len(corpus)))
        begin = time.time()
        sent_at = await upload_all(client, corpus, concurrency)
        events = await asyncio.to_thread(follower.events)
        split = split_delays(events, await asyncio.to_thread(on_bus.events))
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
        "commit_to_bus_p50_ms": 1000 * percentile(split["upstream"], 0.5),
        "commit_to_bus_p99_ms": 1000 * percentile(split["upstream"], 0.99),
        "bus_to_sse_p50_ms": 1000 * percentile(split["gateway"], 0.5),
        "bus_to_sse_p99_ms": 1000 * percentile(split["gateway"], 0.99),
        "commit_to_bus_p99_ms_by_stage": {
            key.split(" ", 1)[1]: f"{1000 * percentile(values, 0.99):.1f} (n={len(values)})"
            for key, values in split.items()
            if key.startswith("upstream ")
        },
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[8], help="uploads in flight at once"
    )
    add_configuration_arguments(parser)
    args = parser.parse_args()
    for config in chosen(args):
        for concurrency in args.concurrency:
            with (
                tempfile.TemporaryDirectory() as data_dir,
                stack_for(config, args, Path(data_dir)) as stack,
            ):
                result = asyncio.run(measure(stack, generate_corpus(args.files), concurrency))
            report(concurrency, result)


def report(concurrency: int, result: dict) -> None:
    print(
        f"concurrency={concurrency}: "
        + ", ".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items()
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
