"""Remote-path benchmark: the 65,000-character transcript through the whole system while every
model call (chat and embeddings) takes a simulated `--latency` seconds at a local fake endpoint.

Compares the wall time with seed 000's sequential design: 4 windows × (1A + 1B) one after
another, then 2A + 2B for each chunk, one call at a time.

Run:  .venv/bin/python -m tests.benchmarks.remote_latency [--latency 2] [--compressors 1 4]
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.fixtures.transcripts import interview_transcript
from tests.helpers import client_for_new_user, follow_until_settled, own_stack, upload


async def process_transcript(stack: Stack) -> tuple[float, dict]:
    async with await client_for_new_user(stack, "latency") as client:
        started = time.monotonic()
        file_id = (await upload(client, "ACD179.md", interview_transcript()))["id"]
        await follow_until_settled(client, file_id)
        elapsed = time.monotonic() - started
        record = (await client.get(f"/v1/files/{file_id}")).json()
        calls = (await client.get(f"/v1/files/{file_id}/model-calls")).json()
    return elapsed, {"record": record, "calls": calls}


def run(latency: float, compressors: int) -> dict:
    with (
        FakeModelServer(realistic_responder, latency=latency) as server,
        tempfile.TemporaryDirectory() as data_dir,
        own_stack(Path(data_dir), server.stack_env(), compressors) as stack,
    ):
        elapsed, detail = asyncio.run(process_transcript(stack))
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
