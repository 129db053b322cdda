"""Ingestion benchmark: a generated corpus of ~200 mixed documents through the real system.

Run:  .venv/bin/python -m tests.benchmarks.ingest [--files 200] [--compressors 1 4]
Prints files/s, chunks/s, upload→ready p50/p95, SSE event delay p50/p99, and the
upload→ready time of a 65,000-character interview transcript on an idle system.
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx

from shared.config import GatewaySettings, InfraSettings
from shared.db import create_pool, users
from shared.launcher.embedded import free_port
from shared.launcher.stack import start_stack
from tests.benchmarks.corpus import generate_corpus
from tests.fixtures.transcripts import interview_transcript


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")
    )


class EventLog:
    """Follows /v1/events; records receive time per event and the ready time per file."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.ready_at: dict[str, float] = {}
        self.failed: set[str] = set()
        self.settled = asyncio.Event()  # set each time a file ends ready or failed

    async def follow(self, client: httpx.AsyncClient, started: asyncio.Event) -> None:
        async with client.stream("GET", "/v1/events", timeout=None) as response:
            started.set()
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    self.record(json.loads(line[5:]), time.time())

    def record(self, event: dict, received: float) -> None:
        if event.get("updated_at"):
            committed = datetime.fromisoformat(event["updated_at"]).timestamp()
            self.delays.append(received - committed)
        if event["status"] == "ready":
            self.ready_at.setdefault(event["file_id"], time.monotonic())
        elif event["status"] == "failed":
            self.failed.add(event["file_id"])
        if event["status"] in ("ready", "failed"):
            self.settled.set()


async def upload_all(
    client: httpx.AsyncClient, corpus: list[tuple[str, bytes]], log: EventLog
) -> tuple[dict[str, float], float]:
    sent_at: dict[str, float] = {}
    limit = asyncio.Semaphore(8)

    async def send(name: str, data: bytes) -> None:
        async with limit:
            started = time.monotonic()
            response = await client.post("/v1/files", files=[("files", (name, data))])
            response.raise_for_status()
            sent_at[response.json()["items"][0]["id"]] = started

    begin = time.monotonic()
    await asyncio.gather(*(send(name, data) for name, data in corpus))
    while len(log.ready_at) + len(log.failed) < len(sent_at):
        log.settled.clear()
        await log.settled.wait()
    return sent_at, begin


async def measure(url: str, database_url: str, corpus: list[tuple[str, bytes]]) -> dict:
    pool = await create_pool(database_url)
    _, key = await users.create_user(pool, name=f"bench-{time.time()}")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        transcript = await transcript_latency(client)
        log = EventLog()
        started = asyncio.Event()
        follower = asyncio.create_task(log.follow(client, started))
        await started.wait()
        sent_at, begin = await upload_all(client, corpus, log)
        follower.cancel()
    chunks = await pool.fetchval(
        "SELECT count(*) FROM file_chunks c JOIN users u ON u.id = c.user_id"
        " WHERE u.name LIKE 'bench-%'"
    )
    await pool.close()
    elapsed = max(log.ready_at.values()) - begin
    latencies = [log.ready_at[f] - sent_at[f] for f in sent_at if f in log.ready_at]
    return {
        "files": len(sent_at),
        "failed": len(log.failed),
        "chunks": chunks,
        "files_per_s": len(sent_at) / elapsed,
        "chunks_per_s": chunks / elapsed,
        "ready_p50_s": percentile(latencies, 0.5),
        "ready_p95_s": percentile(latencies, 0.95),
        "sse_delay_p50_ms": 1000 * percentile(log.delays, 0.5),
        "sse_delay_p99_ms": 1000 * percentile(log.delays, 0.99),
        "transcript_65k_ready_s": transcript,
    }


async def transcript_latency(client: httpx.AsyncClient, runs: int = 3) -> float:
    """Median upload→ready of the 65,000-character transcript (fresh content each run)."""
    timings = []
    for run in range(runs):
        text = interview_transcript() + f"\nBOSS: Thanks, everyone. (run {run} {time.time()})\n"
        started = time.monotonic()
        response = await client.post("/v1/files", files=[("files", ("ACD179.md", text.encode()))])
        file_id = response.json()["items"][0]["id"]
        async with client.stream("GET", f"/v1/files/{file_id}/events") as events:
            async for line in events.aiter_lines():
                if line.startswith("data:") and json.loads(line[5:])["status"] != "processing":
                    break
        timings.append(time.monotonic() - started)
    return statistics.median(timings)


def run(files: int, compressors: int) -> dict:
    with tempfile.TemporaryDirectory() as data_dir:
        infra = InfraSettings(
            data_dir=Path(data_dir), nats_port=free_port(), nats_url="", database_url=""
        )
        gateway = GatewaySettings(port=free_port(), max_upload_bytes=10 * 1024 * 1024)
        stack = start_stack(
            infra, gateway, compressors=compressors, extra_env={"ARTISAN_DATA_DIR": data_dir}
        )
        try:
            return asyncio.run(
                measure(stack.gateway_url, stack.database_url, generate_corpus(files))
            )
        finally:
            stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--compressors", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    for compressors in args.compressors:
        result = run(args.files, compressors)
        print(
            f"compressors={compressors}: "
            + ", ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items()
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
