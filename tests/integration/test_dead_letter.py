"""A message that keeps failing is retried a bounded number of times, then fails its file."""

import asyncio
from collections.abc import Iterator

import asyncpg
import pytest
from faststream import AckPolicy, Context
from faststream.nats import NatsBroker, NatsMessage, PullSub
from nats.js.api import ConsumerConfig

from shared.bus import STREAM, create_broker, work_queue
from shared.config import pipeline_settings
from shared.contracts import Consumer, FileUploaded
from shared.db import users
from shared.errors import PermanentError
from shared.launcher.stack import Stack
from shared.pipeline import run_step
from tests.helpers import park_file

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ARTISAN_MAX_DELIVERIES", "3")
    monkeypatch.setenv("ARTISAN_RETRY_DELAY_SECONDS", "0.05")
    pipeline_settings.cache_clear()
    yield
    pipeline_settings.cache_clear()


async def _new_file(db: asyncpg.Pool, label: str) -> FileUploaded:
    user, _ = await users.create_user(db, name=label)
    row = await park_file(db, user.id, filename=f"{label}.txt", data=label.encode())
    return FileUploaded(file_id=row["id"], user_id=user.id, attempt=1)


async def _run_failing_consumer(
    system: Stack, db: asyncpg.Pool, event: FileUploaded, error: Exception, consumer: str
) -> list[int]:
    """Consume one event with a handler that always raises; returns the deliveries seen."""
    broker = create_broker(system.nats_url)
    deliveries: list[int] = []
    options = work_queue(Consumer.EXTRACTOR)
    options["durable"] = options["config"].durable_name = consumer
    subject = f"file.dead-letter-test.{consumer}"
    options["config"].filter_subject = subject

    async def always_fails(*_: object) -> None:
        raise error

    @broker.subscriber(subject, **options)
    async def handler(
        event: FileUploaded, msg: NatsMessage, broker: NatsBroker = Context("broker")
    ) -> None:
        deliveries.append(msg.raw_message.metadata.num_delivered)
        await run_step(always_fails, event=event, msg=msg, pool=db, broker=broker)

    await broker.start()
    try:
        await broker.publish(event, subject, stream="ARTISAN")
        for _ in range(100):
            row = await db.fetchrow("SELECT status FROM files WHERE id = $1", event.file_id)
            if row["status"] == "failed":
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # would a further delivery arrive?
    finally:
        await broker.stop()
    return deliveries


async def test_transient_errors_are_retried_then_fail_the_file(
    system: Stack, db: asyncpg.Pool, fast_retries: None
) -> None:
    event = await _new_file(db, "dead-letter-transient")
    deliveries = await _run_failing_consumer(
        system, db, event, RuntimeError("model endpoint unreachable"), "test-dl-transient"
    )
    assert deliveries == [1, 2, 3]
    row = await db.fetchrow("SELECT status, error_message FROM files WHERE id = $1", event.file_id)
    assert row["status"] == "failed"
    assert "model endpoint unreachable" in row["error_message"]


async def test_permanent_errors_fail_the_file_at_once(
    system: Stack, db: asyncpg.Pool, fast_retries: None
) -> None:
    event = await _new_file(db, "dead-letter-permanent")
    deliveries = await _run_failing_consumer(
        system, db, event, PermanentError("looks like binary data"), "test-dl-permanent"
    )
    assert deliveries == [1]
    row = await db.fetchrow("SELECT status, error_message FROM files WHERE id = $1", event.file_id)
    assert (row["status"], row["error_message"]) == ("failed", "looks like binary data")


async def test_a_message_whose_consumer_keeps_dying_fails_its_file(
    system: Stack, db: asyncpg.Pool
) -> None:
    """Never acking stands in for a process killed mid-message on every delivery."""
    event = await _new_file(db, "dead-letter-crash-loop")
    subject = "file.dead-letter-test.crash-loop"
    broker = create_broker(system.nats_url)
    deliveries: list[int] = []

    @broker.subscriber(
        subject,
        stream=STREAM,
        durable="test-crash-loop",
        pull_sub=PullSub(batch_size=1, timeout=1.0),
        config=ConsumerConfig(
            durable_name="test-crash-loop", ack_wait=0.5, max_deliver=2, filter_subject=subject
        ),
        ack_policy=AckPolicy.MANUAL,
    )
    async def handler(event: FileUploaded, msg: NatsMessage) -> None:
        deliveries.append(msg.raw_message.metadata.num_delivered)

    await broker.start()
    try:
        await broker.publish(event, subject, stream="ARTISAN")
        row = None
        for _ in range(200):
            row = await db.fetchrow(
                "SELECT status, error_message FROM files WHERE id = $1", event.file_id
            )
            if row["status"] == "failed":
                break
            await asyncio.sleep(0.05)
    finally:
        await broker.stop()
    assert deliveries == [1, 2]
    assert row is not None and row["status"] == "failed"
    assert "test-crash-loop service stopped 2 times" in row["error_message"]
