"""The gateway's peak memory under a flood of oversized, unauthenticated request bodies: each
client streams a 400 MB JSON body to POST /v1/chat (chunked, and with its length declared).

Run:  .venv/bin/python -m tests.benchmarks.body_flood [--clients 8] [--mib 400]
"""

import argparse
import asyncio
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from tests.helpers import own_stack

CHUNK = b" " * (1024 * 1024)


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (the peak since the process started), in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


async def body(mib: int) -> AsyncIterator[bytes]:
    yield b"{"
    for _ in range(mib):
        yield CHUNK


async def flood(url: str, clients: int, mib: int) -> list[int]:
    async def one(declared: bool) -> int:
        headers = {"Content-Type": "application/json"}
        if declared:
            headers["Content-Length"] = str(1 + mib * len(CHUNK))
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            try:
                response = await client.post("/v1/chat", content=body(mib), headers=headers)
                return response.status_code
            except httpx.HTTPError:
                return 0  # the gateway closed the connection after answering

    return await asyncio.gather(*(one(declared=i % 2 == 0) for i in range(clients)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--mib", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, own_stack(Path(data_dir)) as stack:
        [gateway] = [p for p in stack.supervisor.processes if p.label.startswith("gateway")]
        before = memory_kib(gateway.process.pid)
        started = time.monotonic()
        statuses = asyncio.run(flood(stack.gateway_url, args.clients, args.mib))
        elapsed = time.monotonic() - started
        after = memory_kib(gateway.process.pid)
    print(
        f"{args.clients} clients × {args.mib} MiB: statuses {sorted(statuses)} in {elapsed:.1f} s;"
        f" gateway RSS {before['VmRSS'] / 1024:.0f} MiB before, peak {after['VmHWM'] / 1024:.0f}"
        f" MiB, {after['VmRSS'] / 1024:.0f} MiB after"
    )


if __name__ == "__main__":
    main()
