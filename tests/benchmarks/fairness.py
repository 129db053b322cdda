"""Fair scheduling: how long one user's single file takes while another user's 1,000 files are
being processed, against the same file on an idle system.

User A uploads N SciFact abstracts (100 per request); as soon as they are accepted, user B
uploads one short note and times upload → ready. Without fair scheduling B's file would queue
behind all of A's; with it, behind at most one share (ARTISAN_FILES_IN_FLIGHT_PER_USER).

Run:  .venv/bin/python -m tests.benchmarks.fairness [--files 1000] [--in-flight 16]
                                                    [--config quickstart hashed]
"""

import argparse
import asyncio
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from shared.launcher.stack import Stack
from tests.benchmarks.configurations import add_configuration_arguments, chosen, stack_for
from tests.benchmarks.scifact import load, none_processing
from tests.helpers import client_for_new_user, follow_until_settled

BATCH = 100


def note() -> bytes:
    return f"# Standup {uuid.uuid4()}\n\nWe decided to ship the beta on Friday.\n".encode()


async def upload_one_and_time(client: httpx.AsyncClient) -> float:
    started = time.monotonic()
    response = await client.post("/v1/files", files=[("files", ("standup.md", note()))])
    [record] = response.json()["items"]
    await follow_until_settled(client, record["id"])
    elapsed = time.monotonic() - started
    assert (await client.get(f"/v1/files/{record['id']}")).json()["status"] == "ready"
    return elapsed


async def upload_many(client: httpx.AsyncClient, docs: list[tuple[str, str]]) -> list[str]:
    ids: list[str] = []
    for start in range(0, len(docs), BATCH):
        parts = [("files", (f"{d}.txt", text.encode())) for d, text in docs[start : start + BATCH]]
        response = await client.post("/v1/files", files=parts, timeout=300)
        response.raise_for_status()
        ids += [record["id"] for record in response.json()["items"]]
    return ids


async def all_ready(client: httpx.AsyncClient) -> None:
    """Wait for the user's files to settle, then check none failed."""
    await none_processing(client)
    failed = await client.get("/v1/files", params={"status": "failed", "limit": 1}, timeout=60)
    assert not failed.json()["items"], f"a file failed: {failed.json()['items'][0]}"


async def measure(stack: Stack, files: int) -> dict[str, float]:
    corpus, _, _ = load()
    docs = list(corpus.items())[:files]
    busy = await client_for_new_user(stack, "busy")
    other = await client_for_new_user(stack, "other")
    idle = await upload_one_and_time(other)
    started = time.monotonic()
    await upload_many(busy, docs)
    accepted = time.monotonic() - started
    behind = await upload_one_and_time(other)
    await all_ready(busy)
    whole = time.monotonic() - started
    await busy.aclose()
    await other.aclose()
    return {"idle": idle, "behind": behind, "accepted": accepted, "whole": whole}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--in-flight", type=int, default=None, help="files per user at once")
    add_configuration_arguments(parser)
    args = parser.parse_args()
    env = {"ARTISAN_MAX_UPLOAD_BYTES": str(10 * 1024 * 1024)}
    if args.in_flight:
        env["ARTISAN_FILES_IN_FLIGHT_PER_USER"] = str(args.in_flight)
    for config in chosen(args):
        with (
            tempfile.TemporaryDirectory() as data_dir,
            stack_for(config, args, Path(data_dir), **env) as stack,
        ):
            result = asyncio.run(measure(stack, args.files))
        print(
            f"single file on an idle system:            {result['idle']:.2f} s\n"
            f"single file behind {args.files} files of another user: {result['behind']:.2f} s\n"
            f"(the {args.files} files: accepted in {result['accepted']:.1f} s,"
            f" all ready after {result['whole']:.1f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
