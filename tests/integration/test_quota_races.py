"""The storage quota holds under concurrent uploads: requests racing through the real gateway,
each of which fits alone, never store more than the quota together; the ones refused get 413
saying what to do.

They run against a second gateway process with a small quota (and no request budgets, so that
the race is the quota's alone), on the session's NATS and PostgreSQL."""

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import httpx
import pytest

from shared.db import users
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.helpers import NO_RATE_LIMITS, second_gateway, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

QUOTA = 3000
RACERS = 8
QUOTA_REFUSAL = ("Storage quota reached", "Delete files", "Nothing was stored")


@pytest.fixture(scope="module")
def quota_url(system: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**TEST_ENV, **NO_RATE_LIMITS, "ARTISAN_STORAGE_QUOTA_BYTES": str(QUOTA)}
    with second_gateway(system, tmp_path_factory.mktemp("quota-gateway"), env) as url:
        yield url


@pytest.fixture
async def client(quota_url: str, db: asyncpg.Pool) -> AsyncIterator[httpx.AsyncClient]:
    user, key = await users.create_user(db, name=f"quota-{uuid.uuid4().hex[:8]}")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=quota_url, headers=headers, timeout=60) as client:
        client.user_id = user.id  # type: ignore[attr-defined]
        yield client


async def stored(db: asyncpg.Pool, user_id: uuid.UUID) -> tuple[int, int]:
    """The quota's count, and the bytes of the user's files actually stored."""
    row = await db.fetchrow(
        """SELECT u.stored_bytes,
                  (SELECT coalesce(sum(octet_length(data)), 0) FROM file_contents c
                   JOIN files f ON f.id = c.file_id WHERE f.user_id = u.id) AS kept
           FROM users u WHERE u.id = $1""",
        user_id,
    )
    return row["stored_bytes"], row["kept"]


def assert_refused_for_quota(response: httpx.Response) -> None:
    assert response.status_code == 413, response.text
    detail = response.json()["detail"]
    assert all(words in detail for words in QUOTA_REFUSAL), detail


def text_of(size: int) -> bytes:
    """`size` bytes of a note no other upload has."""
    return (uuid.uuid4().hex + " the plan is unchanged." * size)[:size].encode()


async def test_racing_uploads_never_store_more_than_the_quota(
    client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    size = 700  # each fits alone; four fit together (2,800 bytes), five do not
    notes = [(f"note-{i}.txt", text_of(size)) for i in range(RACERS)]
    start = asyncio.Event()

    async def send(name: str, data: bytes) -> httpx.Response:
        await start.wait()
        return await client.post("/v1/files", files=[("files", (name, data))])

    racing = [asyncio.create_task(send(name, data)) for name, data in notes]
    start.set()
    responses = await asyncio.gather(*racing)

    accepted = [r for r in responses if r.status_code == 202]
    assert len(accepted) == QUOTA // size, [r.status_code for r in responses]
    for refused in (r for r in responses if r.status_code != 202):
        assert_refused_for_quota(refused)
    assert await stored(db, client.user_id) == (len(accepted) * size,) * 2
    listed = (await client.get("/v1/files")).json()["items"]
    assert len(listed) == len(accepted)


async def test_racing_updates_never_store_more_than_the_quota(
    client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    small, grown = 600, 1700  # each update alone ends at 2,300 bytes; both, at 3,400
    records = [await upload(client, f"doc-{i}.txt", text_of(small)) for i in range(2)]
    for record in records:
        await wait_for_status(client, record["id"], "ready", timeout=60)
    start = asyncio.Event()

    async def grow(record: dict) -> httpx.Response:
        await start.wait()
        part = (record["filename"], text_of(grown))
        return await client.put(f"/v1/files/{record['id']}", files=[("files", part)])

    racing = [asyncio.create_task(grow(record)) for record in records]
    start.set()
    responses = await asyncio.gather(*racing)

    assert sorted(r.status_code for r in responses) == [202, 413], [r.text for r in responses]
    assert_refused_for_quota(next(r for r in responses if r.status_code == 413))
    used, _ = await stored(db, client.user_id)
    assert used == small + grown <= QUOTA
