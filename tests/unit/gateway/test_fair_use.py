"""Fair use in one process: 429s with Retry-After and a message saying when, stream slots that
come back however a stream ends, and what an upload adds to a user's storage."""

import asyncio
import io
import uuid
from collections.abc import AsyncIterator

import pytest
from fastapi import HTTPException
from sse_starlette import ServerSentEvent

from services.gateway.fair_use.limits import FairUse, HeldEventSource, StreamSlots
from services.gateway.fair_use.token_bucket import TokenBuckets
from services.gateway.files.quota import format_size, new_bytes
from services.gateway.files.upload_stream import ReceivedFile
from shared.config import GatewaySettings

USER = uuid.UUID(int=1)
OTHER = uuid.UUID(int=2)


def limits(**settings: int) -> FairUse:
    return FairUse(GatewaySettings(**settings))


def test_over_the_request_budget_is_a_429_that_says_when_to_try_again() -> None:
    fair_use = limits(rate_limit_per_minute=2)
    fair_use.charge(USER)
    fair_use.charge(USER)
    with pytest.raises(HTTPException) as refused:
        fair_use.charge(USER)
    assert refused.value.status_code == 429
    assert refused.value.headers == {"Retry-After": "30"}
    assert "at most 2 a minute" in refused.value.detail
    assert refused.value.detail.endswith("Try again in 30 s.")
    fair_use.charge(OTHER)  # another user's budget is untouched


def test_the_expensive_budget_is_separate_and_smaller() -> None:
    fair_use = limits(rate_limit_per_minute=100, rate_limit_expensive_per_minute=1)
    fair_use.charge_expensive(USER)
    with pytest.raises(HTTPException) as refused:
        fair_use.charge_expensive(USER)
    assert "chat, upload, search" in refused.value.detail
    assert refused.value.headers == {"Retry-After": "60"}
    fair_use.charge(USER)


def test_an_address_that_sent_too_many_invalid_keys_is_refused_even_a_valid_one() -> None:
    fair_use = limits(auth_failures_per_minute=2)
    for _ in range(2):
        fair_use.check_address("203.0.113.7")
        fair_use.record_auth_failure("203.0.113.7")
    with pytest.raises(HTTPException) as refused:
        fair_use.check_address("203.0.113.7")
    assert refused.value.status_code == 429
    assert "invalid API key" in refused.value.detail
    assert int(refused.value.headers["Retry-After"]) == 30
    fair_use.check_address("198.51.100.1")


def test_retry_after_is_a_whole_number_of_seconds_never_zero() -> None:
    fair_use = limits()
    fair_use.requests = TokenBuckets(100_000, clock=lambda: 0.0)  # a token every 0.6 ms
    for _ in range(100_000):
        fair_use.charge(USER)
    with pytest.raises(HTTPException) as refused:
        fair_use.charge(USER)
    assert refused.value.headers == {"Retry-After": "1"}


def test_stream_slots_per_user_and_released_once() -> None:
    slots = StreamSlots(2)
    first, _ = slots.take(USER), slots.take(USER)
    with pytest.raises(HTTPException) as refused:
        slots.take(USER)
    assert refused.value.status_code == 429
    assert "at most 2 at once" in refused.value.detail
    slots.take(OTHER)
    first.release()
    first.release()  # twice frees one slot, not two
    slots.take(USER)
    with pytest.raises(HTTPException):
        slots.take(USER)


def test_zero_streams_means_no_limit() -> None:
    slots = StreamSlots(0)
    for _ in range(1000):
        slots.take(USER)


async def endless() -> AsyncIterator[ServerSentEvent]:
    while True:
        yield ServerSentEvent(data="tick")
        await asyncio.sleep(0.01)


async def two_events() -> AsyncIterator[ServerSentEvent]:
    yield ServerSentEvent(data="one")
    yield ServerSentEvent(data="two")


SCOPE = {"type": "http", "method": "GET", "path": "/v1/events", "headers": []}


async def test_a_stream_whose_client_disconnects_frees_its_slot() -> None:
    slots = StreamSlots(1)
    response = HeldEventSource(endless(), slot=slots.take(USER))
    sent: list[dict] = []

    async def receive() -> dict:
        await asyncio.sleep(0.1)  # the client reads a few events, then goes away
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    with pytest.raises(HTTPException):
        slots.take(USER)
    await asyncio.wait_for(response(SCOPE, receive, send), 5)
    assert any(b"tick" in message.get("body", b"") for message in sent)
    slots.take(USER)  # the slot is free again


async def test_a_stream_that_ends_by_itself_or_is_cancelled_frees_its_slot() -> None:
    slots = StreamSlots(1)
    never = asyncio.Event()

    async def receive() -> dict:
        await never.wait()
        return {"type": "http.disconnect"}

    streaming = asyncio.Event()

    async def send(message: dict) -> None:
        if message.get("body"):
            streaming.set()

    finished = HeldEventSource(two_events(), slot=slots.take(USER))
    await asyncio.wait_for(finished(SCOPE, receive, send), 5)
    cancelled = HeldEventSource(endless(), slot=slots.take(USER))
    task = asyncio.create_task(cancelled(SCOPE, receive, send))
    await asyncio.wait_for(streaming.wait(), 5)
    task.cancel()  # a server shutting down
    with pytest.raises(asyncio.CancelledError):
        await task
    slots.take(USER)


def received(content: bytes, content_hash: str) -> ReceivedFile:
    return ReceivedFile("f.txt", content_hash, len(content), io.BytesIO(content))


def test_an_upload_adds_only_content_the_user_does_not_have() -> None:
    files = [received(b"a" * 10, "h1"), received(b"b" * 20, "h2"), received(b"a" * 10, "h1")]
    assert new_bytes(files, present=set()) == 30  # the same file twice is stored once
    assert new_bytes(files, present={"h2"}) == 10
    assert new_bytes(files, present={"h1", "h2"}) == 0


def test_sizes_read_as_people_write_them() -> None:
    assert format_size(900) == "900 bytes"
    assert format_size(1536) == "1.5 KB"
    assert format_size(5 * 1024**3) == "5.0 GB"
    assert format_size(300 * 1024**2) == "300.0 MB"
