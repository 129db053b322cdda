"""Server-sent progress events from the running system: current state first, in order, to 100."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from shared.launcher.stack import Stack
from tests.conftest import ClientFactory
from tests.helpers import park_file, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

MEMO = "# Hiring plan\n\nWe decided to hire two engineers before Q3 because support load doubled.\n"
STREAM_TIMEOUT = 30


def unique(text: str) -> str:
    return f"{text}\nref: {uuid.uuid4()}\n"


async def sse_events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Parse a text/event-stream body into {event, id, data(JSON)} dicts; pings are skipped."""
    assert response.status_code == 200, await response.aread()
    assert response.headers["content-type"].startswith("text/event-stream")
    event: dict[str, Any] = {}
    async for line in response.aiter_lines():
        if not line:
            if "data" in event:
                yield event
            event = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            event[name] = json.loads(value) if name == "data" else value


async def file_stream(
    client: httpx.AsyncClient, file_id: str, **kwargs: Any
) -> list[dict[str, Any]]:
    """Every event of a single-file stream, which must end by itself."""
    async with (
        asyncio.timeout(STREAM_TIMEOUT),
        client.stream("GET", f"/v1/files/{file_id}/events", **kwargs) as response,
    ):
        return [event async for event in sse_events(response)]


def assert_moves_forward(events: list[dict[str, Any]]) -> None:
    progress = [e["data"]["progress"] for e in events]
    assert progress == sorted(progress), progress
    assert len({e["id"] for e in events}) == len(events), "an event was repeated"
    assert [e["id"] for e in events] == sorted(e["id"] for e in events)
    assert all(e["event"] == "progress" for e in events)


async def test_a_late_client_gets_the_current_state_and_the_stream_ends(
    api_client: httpx.AsyncClient,
) -> None:
    record = await upload(api_client, "late.md", unique(MEMO))
    ready = await wait_for_status(api_client, record["id"], "ready")
    [event] = await file_stream(api_client, record["id"])
    assert event["data"]["file_id"] == record["id"]
    assert event["data"]["status"] == "ready" and event["data"]["progress"] == 100
    assert event["data"]["total_chunks"] == ready["total_chunks"]
    assert set(event["data"]) >= {
        "file_id", "status", "stage", "progress", "processed_chunks", "total_chunks", "message"
    }  # fmt: skip


async def test_a_file_stream_moves_forward_to_100_and_ends_at_ready(
    api_client: httpx.AsyncClient,
) -> None:
    record = await upload(api_client, "live.md", unique(MEMO) * 30)
    events = await file_stream(api_client, record["id"])
    assert_moves_forward(events)
    assert events[0]["data"]["progress"] >= record["progress"]
    last = events[-1]["data"]
    assert (last["status"], last["stage"], last["progress"]) == ("ready", "ready", 100)
    assert last["processed_chunks"] == last["total_chunks"] >= 1


async def test_the_user_stream_sees_a_file_from_upload_to_100_in_order(
    api_client: httpx.AsyncClient,
) -> None:
    events: list[dict[str, Any]] = []
    opened = asyncio.Event()

    async def follow() -> None:
        async with api_client.stream("GET", "/v1/events") as response:
            opened.set()
            async for event in sse_events(response):
                events.append(event)
                if event["data"]["status"] == "ready":
                    return

    follower = asyncio.create_task(follow())
    await asyncio.wait_for(opened.wait(), 5)
    await asyncio.sleep(0.2)  # the gateway has subscribed once the response has started
    record = await upload(api_client, "watched.md", unique(MEMO) * 30)
    await asyncio.wait_for(follower, STREAM_TIMEOUT)
    mine = [e for e in events if e["data"]["file_id"] == record["id"]]
    assert_moves_forward(mine)
    assert mine[0]["data"]["progress"] <= 20, "the early stages were streamed live"
    assert mine[-1]["data"]["progress"] == 100
    assert len(mine) >= 4


async def test_the_user_stream_starts_with_every_processing_file(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    row = await park_file(db, api_client.user_id, filename="parked.md", data=unique(MEMO).encode())
    for headers in ({}, {"Last-Event-ID": f"{row['id']}:010:000000:0:processing"}):
        async with (
            asyncio.timeout(STREAM_TIMEOUT),
            api_client.stream("GET", "/v1/events", headers=headers) as response,
        ):
            event = await anext(sse_events(response))
        assert event["data"]["file_id"] == str(row["id"])
        assert event["data"]["status"] == "processing" and event["data"]["progress"] == 10


async def test_streams_carry_only_the_users_own_files(make_client: ClientFactory) -> None:
    alice, bob = await make_client(), await make_client()
    seen_by_bob: list[dict[str, Any]] = []

    async def bob_follows() -> None:
        async with bob.stream("GET", "/v1/events") as response:
            async for event in sse_events(response):
                seen_by_bob.append(event)
                if event["data"]["status"] == "ready":
                    return

    follower = asyncio.create_task(bob_follows())
    await asyncio.sleep(0.3)
    alices = await upload(alice, "alice.md", unique(MEMO))
    await wait_for_status(alice, alices["id"], "ready")
    bobs = await upload(bob, "bob.md", unique(MEMO))
    await asyncio.wait_for(follower, STREAM_TIMEOUT)
    assert {e["data"]["file_id"] for e in seen_by_bob} == {bobs["id"]}
    assert (await bob.get(f"/v1/files/{alices['id']}/events")).status_code == 404


async def test_a_key_in_the_url_is_refused_and_said_to_be_exposed(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    record = await upload(api_client, "query.md", unique(MEMO))
    key = api_client.headers["Authorization"].removeprefix("Bearer ")
    async with httpx.AsyncClient(base_url=system.gateway_url) as anonymous:
        for path in (f"/v1/files/{record['id']}/events", "/v1/events", "/v1/files"):
            response = await anonymous.get(path, params={"api_key": key})
            assert response.status_code == 401, path
            assert "not accepted in the URL" in response.json()["detail"]
    # with the header as well, a key in the URL is still refused: it has leaked either way
    refused = await api_client.get("/v1/files", params={"api_key": key})
    assert refused.status_code == 401


async def test_reconnecting_after_the_final_event_gets_204(api_client: httpx.AsyncClient) -> None:
    record = await upload(api_client, "done.md", unique(MEMO))
    await wait_for_status(api_client, record["id"], "ready")
    [final] = await file_stream(api_client, record["id"])
    response = await api_client.get(
        f"/v1/files/{record['id']}/events", headers={"Last-Event-ID": final["id"]}
    )
    assert response.status_code == 204  # EventSource stops reconnecting
    stale = await file_stream(api_client, record["id"], headers={"Last-Event-ID": "x:050"})
    assert [e["data"]["progress"] for e in stale] == [100]


async def test_a_file_deleted_while_streaming_ends_its_stream(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    row = await park_file(db, api_client.user_id, filename="doomed.md", data=unique(MEMO).encode())
    async with (
        asyncio.timeout(STREAM_TIMEOUT),
        api_client.stream("GET", f"/v1/files/{row['id']}/events") as response,
    ):
        events = sse_events(response)
        first = await anext(events)
        assert first["data"]["progress"] == 10
        assert (await api_client.delete(f"/v1/files/{row['id']}")).status_code == 204
        assert [e async for e in events] == []  # ends at the next idle re-read
