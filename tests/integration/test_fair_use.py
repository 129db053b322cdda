"""Fair use on a running gateway: request budgets (429 + Retry-After), failed keys per address,
open streams per user (a closed stream gives its slot back), and the storage quota (413).

The limits are small here, so these tests run against a second gateway process of their own on
the session's NATS and PostgreSQL; the session's gateway keeps the defaults.
"""

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack

import asyncpg
import httpx
import pytest

from shared.db import users
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.helpers import second_gateway

pytestmark = pytest.mark.asyncio(loop_scope="session")

PER_MINUTE, EXPENSIVE_PER_MINUTE, AUTH_FAILURES, STREAMS, QUOTA = 20, 5, 3, 2, 2000
LIMITS = {
    "ARTISAN_RATE_LIMIT_PER_MINUTE": str(PER_MINUTE),
    "ARTISAN_RATE_LIMIT_EXPENSIVE_PER_MINUTE": str(EXPENSIVE_PER_MINUTE),
    "ARTISAN_AUTH_FAILURES_PER_MINUTE": str(AUTH_FAILURES),
    "ARTISAN_MAX_STREAMS_PER_USER": str(STREAMS),
    "ARTISAN_STORAGE_QUOTA_BYTES": str(QUOTA),
}
SLOT_BACK_SECONDS = 10  # how long a closed stream may take to give its slot back


@pytest.fixture(scope="module")
def limited_url(system: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second gateway with small limits, on the session's NATS and PostgreSQL."""
    env = {**TEST_ENV, **LIMITS}
    with second_gateway(system, tmp_path_factory.mktemp("limited-gateway"), env) as url:
        yield url


NewClient = Callable[..., Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def new_client(limited_url: str, db: asyncpg.Pool) -> AsyncIterator[NewClient]:
    """Clients of the limited gateway, each a new user (`address`: the X-Forwarded-For that
    uvicorn trusts from 127.0.0.1, so each test can be a client address of its own)."""
    clients: list[httpx.AsyncClient] = []

    async def make(*, address: str | None = None) -> httpx.AsyncClient:
        _, key = await users.create_user(db, name=f"fair-use-{uuid.uuid4().hex[:8]}")
        headers = {"Authorization": f"Bearer {key}"}
        if address:
            headers["X-Forwarded-For"] = address
        clients.append(httpx.AsyncClient(base_url=limited_url, headers=headers, timeout=30))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


def retry_after(response: httpx.Response) -> int:
    assert response.status_code == 429, response.text
    seconds = int(response.headers["Retry-After"])
    assert f"Try again in {seconds} s." in response.json()["detail"]
    return seconds


async def test_requests_over_the_budget_get_429_with_retry_after(new_client: NewClient) -> None:
    client, other = await new_client(), await new_client()
    statuses = [(await client.get("/v1/files")).status_code for _ in range(PER_MINUTE)]
    assert statuses == [200] * PER_MINUTE
    # a token comes back every 3 s: one of the next few requests is refused, however slow CI is
    refused = next(r for r in [await client.get("/v1/files") for _ in range(3)] if r.is_error)
    assert 1 <= retry_after(refused) <= 60 / PER_MINUTE
    assert f"at most {PER_MINUTE} a minute per user" in refused.json()["detail"]
    assert (await other.get("/v1/files")).status_code == 200  # budgets are per user


async def test_expensive_requests_have_a_smaller_budget_of_their_own(
    new_client: NewClient,
) -> None:
    client = await new_client()
    for _ in range(EXPENSIVE_PER_MINUTE):
        assert (await client.get("/v1/search", params={"q": "pricing"})).status_code == 200
    refused = await client.get("/v1/search", params={"q": "pricing"})
    assert retry_after(refused) <= 60 / EXPENSIVE_PER_MINUTE
    assert "chat, upload, search, context preview and import" in refused.json()["detail"]
    chat = await client.post("/v1/chat", json={"persona": "gunnar", "message": "hi"})
    assert chat.status_code == 429
    assert (await client.get("/v1/files")).status_code == 200  # cheap requests still pass


async def test_invalid_keys_from_one_address_are_refused_then_even_a_valid_one(
    new_client: NewClient, limited_url: str
) -> None:
    address = f"203.0.113.{uuid.uuid4().int % 250 + 1}"
    valid = await new_client(address=address)
    elsewhere = await new_client(address="198.51.100.9")
    async with httpx.AsyncClient(base_url=limited_url, timeout=30) as anonymous:
        from_address = {"X-Forwarded-For": address}
        for _ in range(2 * AUTH_FAILURES):  # no key at all is not a guess: not counted
            assert (await anonymous.get("/v1/files", headers=from_address)).status_code == 401
        guess = {**from_address, "Authorization": "Bearer ak_guess"}
        for _ in range(AUTH_FAILURES):
            assert (await anonymous.get("/v1/files", headers=guess)).status_code == 401
        assert retry_after(await anonymous.get("/v1/files", headers=guess)) > 1
    blocked = await valid.get("/v1/files")  # a right key is not told apart while blocked
    assert "invalid API key from your address" in blocked.json()["detail"]
    assert retry_after(blocked) <= 60 / AUTH_FAILURES
    assert (await elsewhere.get("/v1/files")).status_code == 200


async def open_stream(stack: AsyncExitStack, client: httpx.AsyncClient) -> httpx.Response:
    response = await stack.enter_async_context(client.stream("GET", "/v1/events"))
    assert response.status_code == 200
    return response


async def stream_status(client: httpx.AsyncClient) -> int:
    """Open the endless progress stream, note its status, and close it again."""
    async with client.stream("GET", "/v1/events") as response:
        return response.status_code


async def test_open_streams_are_capped_per_user_and_a_closed_one_frees_its_slot(
    new_client: NewClient,
) -> None:
    client, other = await new_client(), await new_client()
    async with AsyncExitStack() as streams:
        first = await open_stream(streams, client)
        await open_stream(streams, client)
        refused = await client.get("/v1/events")
        assert refused.status_code == 429
        assert f"at most {STREAMS} at once per user" in refused.json()["detail"]
        # a chat answer is a stream too: refused before the chat service is asked
        chat = await client.post("/v1/chat", json={"persona": "gunnar", "message": "hi"})
        assert chat.status_code == 429 and "open streams" in chat.json()["detail"]
        assert (await client.get("/v1/turns")).json()["items"] == []
        await open_stream(streams, other)  # another user's slots are their own

        await first.aclose()  # the client goes away: the gateway sees the disconnect
        closed_at = time.monotonic()
        while await stream_status(client) == 429:
            assert time.monotonic() - closed_at < SLOT_BACK_SECONDS, "the slot never came back"
            await asyncio.sleep(0.1)
        # and the slot that just opened and closed is free again too
        assert await stream_status(client) == 200


async def test_a_stream_that_ends_by_itself_gives_its_slot_back(new_client: NewClient) -> None:
    client = await new_client()
    response = await client.post("/v1/files", files=[("files", ("a.md", f"# A\n{uuid.uuid4()}"))])
    file_id = response.json()["items"][0]["id"]
    async with AsyncExitStack() as streams:
        await open_stream(streams, client)
        for _ in range(3):  # one slot left: the file's stream ends once it is ready, and frees it
            async with asyncio.timeout(60):
                ended = await client.get(f"/v1/files/{file_id}/events", timeout=60)
            assert ended.status_code == 200, ended.text
            assert '"status":"ready"' in ended.text.replace(" ", "")


async def test_an_upload_past_the_storage_quota_is_refused_and_stores_nothing(
    new_client: NewClient,
) -> None:
    client = await new_client()
    first = ("first.txt", ("a" * 1400 + str(uuid.uuid4())).encode())  # 1,436 bytes
    second = ("second.txt", ("b" * 964 + str(uuid.uuid4())).encode())  # 1,000 bytes
    assert (await client.post("/v1/files", files=[("files", first)])).status_code == 202
    refused = await client.post("/v1/files", files=[("files", second)])
    assert refused.status_code == 413
    detail = refused.json()["detail"]
    assert "use 1.4 KB of your 2.0 KB" in detail and "would add 1000 bytes" in detail
    assert "Delete files" in detail and "DELETE /v1/files/{id}" in detail
    [kept] = (await client.get("/v1/files")).json()["items"]
    assert kept["filename"] == "first.txt"
    again = await client.post("/v1/files", files=[("files", first)])  # stores nothing new
    assert again.status_code == 202 and again.json()["items"][0]["duplicate"]
    assert (await client.delete(f"/v1/files/{kept['id']}")).status_code == 204
    assert (await client.post("/v1/files", files=[("files", second)])).status_code == 202
