"""The SSE streams against a fake database: current state first, then forward-only live events."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import anyio

from services.gateway.dispatch.progress_hub import ProgressHub, Signal
from services.gateway.dispatch.sse import ProgressFilter
from services.gateway.dispatch.streams import progress_stream
from shared.contracts import ProgressEvent

USER = uuid.UUID(int=1)
FILE = uuid.UUID(int=10)


def state(progress: int, status: str = "processing", file_id: uuid.UUID = FILE) -> ProgressEvent:
    return ProgressEvent(file_id=file_id, status=status, stage=status, progress=progress)


class FakeDatabase:
    """The current state a stream reads on connect and on resync."""

    def __init__(self, *states: ProgressEvent) -> None:
        self.states = list(states)
        self.reads: list[Signal] = []

    async def load(self, progress: ProgressFilter, signal: Signal) -> list[ProgressEvent] | None:
        self.reads.append(signal)
        return None if not self.states else list(self.states)


async def collect(stream: AsyncIterator, count: int) -> list[int]:
    progresses = []
    async for message in stream:
        progresses.append(json.loads(message.data)["progress"])
        if len(progresses) == count:
            break
    return progresses


async def test_a_late_client_gets_the_current_state_then_live_events_until_ready() -> None:
    hub, db = ProgressHub(), FakeDatabase(state(54))
    stream = progress_stream(hub, USER, db.load, file_id=FILE)
    first = await anext(stream)
    assert json.loads(first.data)["progress"] == 54
    for event in (state(30), state(54), state(72), state(63), state(100, "ready"), state(99)):
        hub.publish(USER, event)
    rest = [json.loads(message.data)["progress"] async for message in stream]
    assert rest == [72, 100]  # older, repeated and post-ready events never reach the client
    assert hub.connection_count() == 0


async def test_events_published_while_the_state_is_read_are_not_lost() -> None:
    hub = ProgressHub()

    async def slow_load(progress: ProgressFilter, signal: Signal) -> list[ProgressEvent]:
        hub.publish(USER, state(60))  # arrives between subscribing and the read returning
        return [state(50)]

    stream = progress_stream(hub, USER, slow_load, file_id=FILE)
    assert await collect(stream, 2) == [50, 60]
    await stream.aclose()


async def test_a_finished_file_ends_the_stream_at_once() -> None:
    hub, db = ProgressHub(), FakeDatabase(state(100, "ready"))
    messages = [m async for m in progress_stream(hub, USER, db.load, file_id=FILE)]
    assert len(messages) == 1


async def test_a_deleted_file_ends_the_stream() -> None:
    hub, db = ProgressHub(), FakeDatabase()
    assert [m async for m in progress_stream(hub, USER, db.load, file_id=FILE)] == []


async def test_a_lagging_stream_rereads_the_database() -> None:
    hub, db = ProgressHub(capacity=2), FakeDatabase(state(50))
    stream = progress_stream(hub, USER, db.load, file_id=FILE)
    assert json.loads((await anext(stream)).data)["progress"] == 50
    db.states = [state(90)]
    for progress in range(60, 70):
        hub.publish(USER, state(progress))
    assert await collect(stream, 1) == [90]
    assert db.reads == [Signal.RESYNC, Signal.RESYNC]
    await stream.aclose()


async def test_shutdown_ends_a_waiting_stream() -> None:
    hub, db = ProgressHub(), FakeDatabase(state(50))
    stream = progress_stream(hub, USER, db.load)
    await anext(stream)
    waiter = asyncio.create_task(anext(stream, None))
    await asyncio.sleep(0.01)
    hub.close()
    assert await asyncio.wait_for(waiter, 1) is None


async def test_a_user_stream_carries_every_file_and_stays_open_after_one_finishes() -> None:
    other = uuid.UUID(int=11)
    hub, db = ProgressHub(), FakeDatabase(state(20), state(40, file_id=other))
    stream = progress_stream(hub, USER, db.load)
    assert await collect(stream, 2) == [20, 40]
    hub.publish(USER, state(100, "ready"))
    hub.publish(USER, state(50, file_id=other))
    assert await collect(stream, 2) == [100, 50]
    await stream.aclose()
    assert hub.connection_count() == 0


async def test_server_shutdown_ends_the_stream_cleanly() -> None:
    hub, db = ProgressHub(), FakeDatabase(state(50))
    shutdown = anyio.Event()
    stream = progress_stream(hub, USER, db.load, shutdown=shutdown)
    await anext(stream)
    waiter = asyncio.create_task(anext(stream, None))
    await asyncio.sleep(0.01)
    shutdown.set()
    assert await asyncio.wait_for(waiter, 1) is None
    assert hub.connection_count() == 0
