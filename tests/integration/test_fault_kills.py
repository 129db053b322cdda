"""The fault suite, kills: every service process — the gateway too — SIGKILLed at random while
two users upload files, import history and chat. Nothing may be lost, stranded or duplicated:
every accepted file ends ready (or failed with a reason), covered by its chunks exactly once;
every stored turn reaches the journal; the system heals with nobody's help."""

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
import pytest

from shared.db import create_pool
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.fixtures import documents
from tests.helpers import (
    assert_exact_coverage,
    client_for_new_user,
    heal_until_all_running,
    own_stack,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")
T = TypeVar("T")
logger = logging.getLogger(__name__)

CHAOS_SECONDS = 25.0
KILL_EVERY_SECONDS = 0.8
MIN_UPTIME_SECONDS = 1.5  # a process gets to start before it is killed again
SETTLE_SECONDS = 240.0
FILES = 24
CHATS = 4
# quick redelivery and re-drive: the test waits for healing, so healing should be quick
FAULT_ENV = {**TEST_ENV, "ARTISAN_REDRIVE_AFTER_SECONDS": "5", "ARTISAN_MAX_DELIVERIES": "5"}


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Any:
    # two of the services that scale out, so a killed one's work is also taken by its twin
    with own_stack(
        tmp_path_factory.mktemp("faults"),
        env=FAULT_ENV,
        compressors=2,
        chunkers=2,
        pgdata=pgdata_template,
    ) as stack:
        yield stack


async def test_random_kills_of_every_service_lose_and_duplicate_nothing(
    faulty: Stack, tmp_path: Path
) -> None:
    uploader = await client_for_new_user(faulty, "uploader")
    talker = await client_for_new_user(faulty, "talker")
    chaos = Chaos(faulty, random.Random(12))
    killer = asyncio.create_task(chaos.run(CHAOS_SECONDS))
    try:
        file_ids, turn_ids = await asyncio.gather(_upload_all(uploader), _talk(talker))
        await chaos.kills_done.wait()
    finally:
        killer.cancel()
    heal_until_all_running(faulty)
    db = await create_pool(faulty.database_url)
    try:
        settled = await _settled(db, SETTLE_SECONDS)
        await _assert_files_whole(uploader, db, file_ids)
        await _assert_turns_journaled(db, turn_ids)
    finally:
        await db.close()
        await uploader.aclose()
        await talker.aclose()
    logger.warning(  # the figures of the closing note (see them with --log-cli-level=WARNING)
        f"fault suite: {chaos.kills} SIGKILLs ({', '.join(sorted(chaos.killed))}),"
        f" {len(file_ids)} files and {len(turn_ids)} turns, settled in {settled:.1f} s"
    )
    assert chaos.kills >= 20 and "gateway" in chaos.killed


class Chaos:
    """Kills a random service process now and then; restarts what died, as `artisan up` does."""

    def __init__(self, stack: Stack, rng: random.Random) -> None:
        self.stack, self.rng = stack, rng
        self.kills = 0
        self.killed: set[str] = set()
        self.kills_done = asyncio.Event()

    async def run(self, seconds: float) -> None:
        """Kill for `seconds`, then go on restarting what died (as `artisan up` does) until
        cancelled: the workload may outlast the kills."""
        deadline = time.monotonic() + seconds
        while True:
            if time.monotonic() < deadline:
                self._kill_one()
            else:
                self.kills_done.set()
            for _ in range(4):
                self.stack.supervisor.restart_dead()
                await asyncio.sleep(KILL_EVERY_SECONDS / 4)

    def _kill_one(self) -> None:
        now = time.monotonic()
        victims = [
            p
            for p in self.stack.supervisor.processes
            if p.process.poll() is None and now - p.started_at >= MIN_UPTIME_SECONDS
        ]
        if victims:
            victim = self.rng.choice(victims)
            victim.process.kill()
            self.kills += 1
            self.killed.add(victim.name)


async def _persist(call: Callable[[], Awaitable[T]], timeout: float = 120) -> T:
    """What a client does when the gateway dies under it: try again until it answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await call()
        except (httpx.TransportError, AssertionError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


def _document(n: int) -> str:
    """Every other file is long enough to take every step; the others, small, are finished
    by the chunker: the kills hit both ways through the pipeline."""
    return documents.long_markdown(8) if n % 2 else documents.markdown()


async def _upload_all(client: httpx.AsyncClient) -> list[str]:
    """Uploads in small batches; a batch cut off by a kill is sent again (a re-upload of the
    same content returns the stored file)."""
    ids: list[str] = []
    for start in range(0, FILES, 4):
        parts = [
            (
                "files",
                (f"doc-{n}.md", _document(n) + f"\n\nrevision {n}\n", "text/markdown"),
            )
            for n in range(start, start + 4)
        ]

        async def post(parts: list[Any] = parts) -> list[str]:
            response = await client.post("/v1/files", files=parts)
            assert response.status_code == 202, response.text
            return [record["id"] for record in response.json()["items"]]

        ids += await _persist(post)
        await asyncio.sleep(0.5)
    assert len(set(ids)) == FILES
    return ids


async def _talk(client: httpx.AsyncClient) -> set[str]:
    """Chat turns and an import; a chat cut off by a kill is asked again."""
    turn_ids: set[str] = set()
    history = [
        {
            "persona": "vlad",
            "user_message": f"We decided to hire engineer {n}.",
            "ai_response": "ok",
        }
        for n in range(10)
    ]

    async def imported() -> list[str]:
        response = await client.post("/v1/turns/import", json={"turns": history})
        assert response.status_code == 202, response.text
        return [turn["id"] for turn in response.json()["items"]]

    turn_ids.update(await _persist(imported))
    for n in range(CHATS):

        async def ask(n: int = n) -> str:
            return await _chat(client, f"What did we decide about hiring? ({n})")

        turn_ids.add(await _persist(ask))
        await asyncio.sleep(1.0)
    return turn_ids


async def _chat(client: httpx.AsyncClient, message: str) -> str:
    """The turn id of a completed answer (AssertionError when the stream ended without one)."""
    body = {"persona": "gunnar", "message": message}
    async with client.stream("POST", "/v1/chat", json=body, timeout=60) as response:
        assert response.status_code == 200
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "done":
                return json.loads(line.split(":", 1)[1])["turn_id"]
    raise AssertionError("the answer stream ended without a done event")


async def _settled(db: asyncpg.Pool, timeout: float) -> float:
    """Seconds until no file is processing and no turn is on its way into the journal."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        busy = await db.fetchval(
            "SELECT (SELECT count(*) FROM files WHERE status = 'processing')"
            " + (SELECT count(*) FROM superjournal WHERE journal_status = 'pending')"
        )
        if busy == 0:
            return time.monotonic() - started
        await asyncio.sleep(0.5)
    stuck = await db.fetch(
        "SELECT id, processing_stage, attempt, redrives FROM files WHERE status = 'processing'"
    )
    raise AssertionError(f"stranded after {timeout:.0f} s: {[dict(r) for r in stuck]}")


async def _assert_files_whole(client: httpx.AsyncClient, db: asyncpg.Pool, ids: list[str]) -> None:
    rows = await db.fetch(
        "SELECT id::text, status, error_message FROM files WHERE id::text = ANY($1)", ids
    )
    assert len(rows) == len(ids)
    failed = [r for r in rows if r["status"] != "ready"]
    assert all(r["error_message"] for r in failed), "a failed file says why"
    assert len(failed) <= 2, f"most files make it through the kills: {failed}"
    for row in rows:
        if row["status"] != "ready":
            continue
        chunks = (await client.get(f"/v1/files/{row['id']}/chunks")).json()["items"]
        text = (await client.get(f"/v1/files/{row['id']}/content")).text
        assert_exact_coverage(text, chunks)
    unembedded = await db.fetchval(
        "SELECT count(*) FROM file_chunks WHERE file_id::text = ANY($1) AND embedding IS NULL",
        [r["id"] for r in rows if r["status"] == "ready"],
    )
    assert unembedded == 0


async def _assert_turns_journaled(db: asyncpg.Pool, turn_ids: set[str]) -> None:
    rows = await db.fetch(
        "SELECT s.id::text, s.journal_status, j.turn_id IS NOT NULL AS has_cut"
        " FROM superjournal s LEFT JOIN journal j ON j.turn_id = s.id"
        " WHERE s.id::text = ANY($1)",
        list(turn_ids),
    )
    assert len(rows) == len(turn_ids)
    assert all(r["journal_status"] == "journaled" and r["has_cut"] for r in rows), rows
