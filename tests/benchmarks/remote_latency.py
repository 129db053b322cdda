"""Remote-path benchmark: the 65,000-character transcript through the whole system while every
model call (chat and embeddings) takes a simulated `--latency` seconds at a local fake endpoint.

Compares the wall time with seed 000's sequential design: 4 windows × (1A + 1B) one after
another, then 2A + 2B for each chunk, one call at a time.

Run:  .venv/bin/python -m tests.benchmarks.remote_latency [--latency 2] [--compressors 1 4]
"""

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import httpx

from shared.config import GatewaySettings, InfraSettings
from shared.db import create_pool, users
from shared.launcher.embedded import free_port
from shared.launcher.stack import start_stack
from tests.fakes.llm_responder import realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.fixtures.transcripts import interview_transcript


async def process_transcript(url: str, database_url: str) -> tuple[float, dict]:
    pool = await create_pool(database_url)
    _, key = await users.create_user(pool, name="latency")
    await pool.close()
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=600) as client:
        started = time.monotonic()
        response = await client.post(
            "/v1/files", files=[("files", ("ACD179.md", interview_transcript().encode()))]
        )
        file_id = response.json()["items"][0]["id"]
        async with client.stream("GET", f"/v1/files/{file_id}/events") as events:
            async for line in events.aiter_lines():
                if line.startswith("data:") and json.loads(line[5:])["status"] != "processing":
                    break
        elapsed = time.monotonic() - started
        record = (await client.get(f"/v1/files/{file_id}")).json()
        calls = (await client.get(f"/v1/files/{file_id}/model-calls")).json()
    return elapsed, {"record": record, "calls": calls}


def run(latency: float, compressors: int) -> dict:
    with (
        FakeModelServer(realistic_responder, latency=latency) as server,
        tempfile.TemporaryDirectory() as data_dir,
    ):
        infra = InfraSettings(
            data_dir=Path(data_dir), nats_port=free_port(), nats_url="", database_url=""
        )
        env = {
            "ARTISAN_DATA_DIR": data_dir,
            "ARTISAN_LLM_BASE_URL": server.base_url,
            "ARTISAN_LLM_API_KEY": "bench",
            "ARTISAN_VOYAGE_API_KEY": "bench",
            "ARTISAN_VOYAGE_BASE_URL": server.base_url,
        }
        stack = start_stack(
            infra, GatewaySettings(port=free_port()), compressors=compressors, extra_env=env
        )
        try:
            elapsed, detail = asyncio.run(process_transcript(stack.gateway_url, stack.database_url))
        finally:
            stack.stop()
    chunks = detail["record"]["total_chunks"]
    sequential = (4 * 2 + 2 * chunks) * latency
    roles: dict[str, int] = {}
    for call in detail["calls"]["items"]:
        roles[call["role"]] = roles.get(call["role"], 0) + 1
    return {
        "status": detail["record"]["status"],
        "chunks": chunks,
        "wall_s": elapsed,
        "sequential_design_s": sequential,
        "ratio": elapsed / sequential,
        "calls": roles,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--compressors", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    for compressors in args.compressors:
        result = run(args.latency, compressors)
        print(f"latency={args.latency}s compressors={compressors}: {result}", flush=True)


if __name__ == "__main__":
    main()
