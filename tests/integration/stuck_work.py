"""Waiting for files to be ready, healing the stack as `artisan up` does, and where unfinished
files wait for a test's failure message: their stages and every durable consumer's counts."""

import asyncio
import time
from collections.abc import Callable

import asyncpg
from nats.js import JetStreamContext

from shared.contracts import STREAM_NAME


async def where_stuck(db: asyncpg.Pool, ids: list[str], jetstream: JetStreamContext) -> str:
    """The unfinished files' stages and every consumer's counts: where the work waits."""
    stages = await db.fetch(
        "SELECT processing_stage, count(*) AS n FROM files"
        " WHERE id::text = ANY($1) AND status <> 'ready' GROUP BY 1",
        ids,
    )
    infos = await jetstream.consumers_info(STREAM_NAME)
    counts = {i.name: (i.num_pending, i.num_ack_pending, i.num_redelivered) for i in infos}
    return f"stages {dict(stages)}; consumers (pending, ack pending, redelivered) {counts}"


async def file_statuses(db: asyncpg.Pool, ids: list[str]) -> dict[str, str]:
    rows = await db.fetch("SELECT id::text, status FROM files WHERE id::text = ANY($1)", ids)
    return {row["id"]: row["status"] for row in rows}


async def wait_all_ready(
    db: asyncpg.Pool,
    ids: list[str],
    jetstream: JetStreamContext,
    heal: Callable[[], list[str]],
    settle_seconds: float,
) -> list[str]:
    """Wait for every file to be ready, healing the stack as `artisan up` does meanwhile (a
    service that was still subscribing when a NATS server died exits and is restarted); the
    services restarted."""
    deadline, healed = time.monotonic() + settle_seconds, []
    while time.monotonic() < deadline:
        healed += heal()
        statuses = await file_statuses(db, ids)
        failed = [file_id for file_id, status in statuses.items() if status == "failed"]
        if failed:
            reasons = await db.fetch(
                "SELECT filename, error_message FROM files WHERE id::text = ANY($1)", failed
            )
            raise AssertionError(f"files failed: {[dict(row) for row in reasons]}")
        if list(statuses.values()).count("ready") == len(ids):
            return healed
        await asyncio.sleep(0.1)
    stuck = await where_stuck(db, ids, jetstream)
    raise AssertionError(f"not ready after {settle_seconds:.0f} s (restarted {healed}): {stuck}")
