"""Helpers shared by integration and end-to-end tests."""

import asyncio
import hashlib
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx
from pydantic import SecretStr

from shared.config import GatewaySettings, InfraSettings
from shared.db import create_pool, files, users
from shared.db.turns import NewTurn, insert_turn
from shared.formats import media_type_for
from shared.launcher.embedded import free_port
from shared.launcher.stack import Stack, start_stack, wait_until_ready
from shared.launcher.supervisor import Supervisor
from shared.models.server_settings import ModelServerSettings


async def wait_for_status(
    client: httpx.AsyncClient, file_id: str, status: str, timeout: float = 30
) -> dict[str, Any]:
    """Poll a file until it reaches `status`; fail fast if it ends in another final status."""
    deadline = time.monotonic() + timeout
    record: dict[str, Any] = {}
    while time.monotonic() < deadline:
        response = await client.get(f"/v1/files/{file_id}")
        response.raise_for_status()
        record = response.json()
        if record["status"] == status:
            return record
        if record["status"] in ("ready", "failed"):
            raise AssertionError(f"file ended {record['status']}, not {status}: {record}")
        await asyncio.sleep(0.05)
    raise AssertionError(f"file not {status} after {timeout} s: {record}")


IMPORT_BATCH = 1000  # the most POST /v1/turns/import takes at once


async def import_turns(
    client: httpx.AsyncClient, turns: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Import turns ({persona, user_message, ai_response, created_at?}) in batches; the records."""
    records: list[dict[str, Any]] = []
    for start in range(0, len(turns), IMPORT_BATCH):
        batch = turns[start : start + IMPORT_BATCH]
        response = await client.post("/v1/turns/import", json={"turns": batch}, timeout=120)
        assert response.status_code == 202, response.text
        records.extend(response.json()["items"])
    return records


async def wait_journaled(
    client: httpx.AsyncClient, turn_ids: list[str], timeout: float = 60
) -> dict[str, dict[str, Any]]:
    """Poll the user's turns until every one of `turn_ids` is journaled; fail fast on a failed
    one. Returns the turn records by id."""
    waiting = set(map(str, turn_ids))
    done: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while waiting:
        async for turn in _all_turns(client):
            if turn["id"] not in waiting:
                continue
            if turn["journal_status"] == "failed":
                raise AssertionError(f"turn failed to journal: {turn}")
            if turn["journal_status"] == "journaled":
                waiting.discard(turn["id"])
                done[turn["id"]] = turn
        if not waiting:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(waiting)} turns not journaled after {timeout} s")
        await asyncio.sleep(0.2)
    return done


async def _all_turns(client: httpx.AsyncClient) -> AsyncIterator[dict[str, Any]]:
    before: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1000, **({"before": before} if before else {})}
        response = await client.get("/v1/turns", params=params)
        response.raise_for_status()
        page = response.json()
        for turn in page["items"]:
            yield turn
        before = page["next"]
        if before is None:
            return


async def upload(
    client: httpx.AsyncClient, name: str, content: bytes | str, media_type: str = "text/plain"
) -> dict[str, Any]:
    data = content.encode() if isinstance(content, str) else content
    response = await client.post("/v1/files", files=[("files", (name, data, media_type))])
    assert response.status_code == 202, response.text
    [record] = response.json()["items"]
    return record


def assert_exact_coverage(text: str, chunks: list[dict[str, Any]]) -> None:
    """Chunks are in order, contiguous, non-empty, cover the text exactly, and quote it exactly."""
    assert chunks, "no chunks"
    position = 0
    for index, chunk in enumerate(chunks):
        assert chunk["chunk_index"] == index
        assert chunk["char_start"] == position, (index, chunk["char_start"], position)
        assert chunk["char_end"] > chunk["char_start"]
        assert chunk["text"] == text[chunk["char_start"] : chunk["char_end"]]
        position = chunk["char_end"]
    assert position == len(text)


NO_RATE_LIMITS = {
    "ARTISAN_RATE_LIMIT_PER_MINUTE": "0",
    "ARTISAN_RATE_LIMIT_EXPENSIVE_PER_MINUTE": "0",
}


def copy_pgdata(template: Path, data_dir: Path) -> None:
    """A copy of a migrated, stopped PostgreSQL data directory where a stack in `data_dir`
    looks for its own (owners and modes kept: PostgreSQL runs as pgserver's user). The stack
    starts on it as on its own after a restart, without initdb and the migrations (seconds)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(template), str(data_dir / "pgdata")], check=True)


@contextmanager
def own_stack(
    data_dir: Path,
    env: dict[str, str] | None = None,
    compressors: int = 1,
    *,
    chunkers: int = 1,
    embedders: int = 1,
    nats_url: str = "",
    nats_token: SecretStr | None = None,
    pgdata: Path | None = None,
    model_file: str = "",
    service_env: dict[str, dict[str, str]] | None = None,
) -> Iterator[Stack]:
    """A whole system of its own (embedded NATS + PostgreSQL, every service) in `data_dir`;
    without request rate limits unless `env` sets them (benchmarks load corpora as one user).
    With `nats_url` (and its token), the services use that NATS instead of an embedded one.
    With `pgdata` (the test run's `pgdata_template`), its database starts as a copy of that.
    With `model_file`, it serves that model as `artisan up --model` does."""
    if pgdata is not None:
        copy_pgdata(pgdata, data_dir)
    # without a token of its own, the stack shares the one in this process's environment (the
    # session system's), so every system's clients here present the same
    token = {"nats_token": nats_token} if nats_token else {}
    infra = InfraSettings(
        data_dir=data_dir,
        nats_port=free_port(),
        nats_url=nats_url,
        database_url="",
        **token,
    )
    stack = start_stack(
        infra,
        GatewaySettings(port=free_port()),
        replicas={"compressor": compressors, "chunker": chunkers, "embedder": embedders},
        extra_env={"ARTISAN_DATA_DIR": str(data_dir), **NO_RATE_LIMITS, **(env or {})},
        model=ModelServerSettings(model_file=model_file, model_port=free_port()),
        service_env=service_env,
    )
    try:
        yield stack
    finally:
        stack.stop()


@contextmanager
def second_gateway(system: Stack, log_dir: Path, env: dict[str, str]) -> Iterator[str]:
    """Another gateway process on `system`'s NATS and PostgreSQL, with the settings of `env`;
    yields its URL."""
    port = free_port()
    supervisor = Supervisor(
        {
            **env,
            "ARTISAN_NATS_URL": system.nats_url,
            "ARTISAN_DATABASE_URL": system.database_url,
            "ARTISAN_HOST": "127.0.0.1",
            "ARTISAN_PORT": str(port),
        },
        log_dir=log_dir,
    )
    supervisor.start("gateway")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(url, supervisor)
        yield url
    finally:
        supervisor.stop()


def heal_until_all_running(stack: Stack, timeout: float = 60) -> None:
    """Restart the killed services, as `artisan up` does, until every one runs again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stack.supervisor.restart_dead()
        if all(p.process.poll() is None for p in stack.supervisor.processes):
            return
        time.sleep(0.2)
    raise AssertionError("services did not come back")


async def client_for_new_user(stack: Stack, name: str, *, admin: bool = False) -> httpx.AsyncClient:
    """An API client of a new user of `stack` named after `name` (names are unique: a fixture
    may make one a test), its admin if `admin` (close it when done)."""
    pool = await create_pool(stack.database_url)
    try:
        _, key = await users.create_user(pool, name=f"{name}-{uuid4().hex[:8]}", admin=admin)
    finally:
        await pool.close()
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.AsyncClient(base_url=stack.gateway_url, headers=headers, timeout=30)


async def follow_until_settled(client: httpx.AsyncClient, file_id: str) -> None:
    """Read the file's SSE stream to its end: it closes once the file is ready or failed."""
    async with client.stream("GET", f"/v1/files/{file_id}/events", timeout=600) as events:
        async for _ in events.aiter_lines():
            pass


async def park_file(
    db: asyncpg.Pool, user_id: UUID, *, filename: str, data: bytes
) -> asyncpg.Record:
    """A file stored as if its event were on the bus but no worker had taken it yet: the
    dispatcher leaves it alone (it is not queued) until it has been quiet for the re-drive
    delay (30 s), so it stays where the test puts it."""
    async with db.acquire() as conn, conn.transaction():
        row, _ = await files.insert_file(
            conn,
            user_id=user_id,
            filename=filename,
            media_type=media_type_for(filename),
            content_hash=hashlib.sha256(data).hexdigest(),
            data=data,
        )
        return await conn.fetchrow(
            f"UPDATE files SET processing_stage = 'extracting', progress = 10 WHERE id = $1"
            f" RETURNING {files.FILE_COLUMNS}",
            row["id"],
        )


async def park_turn(db: asyncpg.Pool, turn: NewTurn) -> asyncpg.Record:
    """A turn stored as if its event were on the bus but no worker had taken it yet: the
    dispatcher leaves it alone until it has been quiet for the re-drive delay (30 s)."""
    async with db.acquire() as conn, conn.transaction():
        row = await insert_turn(conn, turn)
        await conn.execute("UPDATE superjournal SET published_at = now() WHERE id = $1", row["id"])
        return row


@asynccontextmanager
async def rolled_back(db: asyncpg.Pool) -> AsyncIterator[asyncpg.Connection]:
    """A connection in a transaction that is rolled back at the end: what a test writes there
    is seen by nobody else, and is gone afterwards."""
    async with db.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        try:
            yield conn
        finally:
            await transaction.rollback()


def rows_read(plan: dict[str, Any]) -> float:
    """Rows an EXPLAIN ANALYZE plan node and those below it produced or filtered out, over all
    their loops."""
    own = (plan["Actual Rows"] + plan.get("Rows Removed by Filter", 0)) * plan["Actual Loops"]
    return own + sum(rows_read(child) for child in plan.get("Plans", []))
