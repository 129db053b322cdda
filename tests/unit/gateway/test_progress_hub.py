"""The in-process fan-out: per-user routing, bounded buffers, shutdown."""

import asyncio
import uuid

import pytest

from services.gateway.dispatch.progress_hub import (
    GatewayProgress,
    ProgressHub,
    Signal,
    user_id_from_subject,
)
from shared.contracts import ProgressEvent, progress_subject
from tests.fixtures.rows import queued_file_row

ALICE, BOB = uuid.UUID(int=1), uuid.UUID(int=2)
FILE_A, FILE_B = uuid.UUID(int=10), uuid.UUID(int=11)


def event(file_id: uuid.UUID, progress: int = 50) -> ProgressEvent:
    return ProgressEvent(
        file_id=file_id, status="processing", stage="processing", progress=progress
    )


async def test_events_reach_only_their_users_connections() -> None:
    hub = ProgressHub()
    with hub.subscribe(ALICE) as alice, hub.subscribe(BOB) as bob:
        hub.publish(ALICE, event(FILE_A))
        assert await alice.next(1) == event(FILE_A)
        assert await bob.next(0.01) is Signal.IDLE


async def test_a_file_subscription_sees_only_that_file() -> None:
    hub = ProgressHub()
    with hub.subscribe(ALICE, FILE_B) as subscription:
        hub.publish(ALICE, event(FILE_A))
        hub.publish(ALICE, event(FILE_B))
        assert await subscription.next(1) == event(FILE_B)


async def test_a_waiting_connection_wakes_on_publish() -> None:
    hub = ProgressHub()
    with hub.subscribe(ALICE) as subscription:
        waiter = asyncio.create_task(subscription.next(5))
        await asyncio.sleep(0)
        hub.publish(ALICE, event(FILE_A, 60))
        assert (await waiter).progress == 60


async def test_a_slow_connection_drops_its_backlog_and_is_told_to_resync() -> None:
    hub = ProgressHub(capacity=3)
    with hub.subscribe(ALICE) as slow, hub.subscribe(ALICE) as fast:
        for progress in range(50, 60):
            hub.publish(ALICE, event(FILE_A, progress))
            assert (await fast.next(1)).progress == progress  # unaffected by the slow one
        assert await slow.next(1) is Signal.RESYNC
        remaining = [(await slow.next(1)).progress for _ in range(2)]
        assert remaining == [58, 59]


async def test_closing_the_hub_ends_every_connection() -> None:
    hub = ProgressHub()
    with hub.subscribe(ALICE) as subscription:
        waiter = asyncio.create_task(subscription.next(60))
        await asyncio.sleep(0)
        hub.close()
        assert await asyncio.wait_for(waiter, 1) is Signal.CLOSED
    with hub.subscribe(BOB) as late:
        assert await late.next(60) is Signal.CLOSED


def test_leaving_unsubscribes() -> None:
    hub = ProgressHub()
    with hub.subscribe(ALICE), hub.subscribe(ALICE):
        assert hub.connection_count() == 2
    assert hub.connection_count() == 0


def test_user_id_comes_from_the_progress_subject() -> None:
    assert user_id_from_subject(progress_subject(ALICE, FILE_A)) == ALICE
    assert user_id_from_subject("progress.not-a-uuid.x") is None
    assert user_id_from_subject("file.uploaded") is None


class BusDown:
    """A broker whose publishes fail, as during a NATS restart."""

    async def publish(self, *args: object, **kwargs: object) -> None:
        raise ConnectionError("nats is restarting")


async def test_the_gateways_own_event_reaches_its_streams_while_the_bus_is_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hub = ProgressHub()
    row = queued_file_row(ALICE, FILE_A)
    with hub.subscribe(ALICE) as subscription:
        await GatewayProgress(hub, BusDown()).announce(row)  # type: ignore[arg-type]
        assert (await subscription.next(0)).file_id == FILE_A  # type: ignore[union-attr]
    assert "could not announce progress" in caplog.text
