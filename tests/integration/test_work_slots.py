"""A service working on several messages at once never lets one wait past its ack deadline:
each slot fetches a message only when it is free, so no message sits fetched and unheartbeated
behind busy slots (JetStream would deliver it a second time while it waits)."""

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest
from faststream import Context
from faststream.nats import NatsBroker, NatsMessage

from shared.bus import create_broker, work_queue
from shared.config import pipeline_settings
from shared.contracts import Consumer, FileUploaded
from shared.db import users
from shared.launcher.stack import Stack
from shared.pipeline import run_step
from tests.helpers import park_file

pytestmark = pytest.mark.asyncio(loop_scope="session")

ACK_WAIT_SECONDS = 1.0
STEP_SECONDS = 1.6  # longer than the deadline: a message fetched behind a busy slot outwaits it
SLOTS = 2
MESSAGES = 6


@pytest.fixture
def short_ack_deadline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ARTISAN_ACK_WAIT_SECONDS", str(ACK_WAIT_SECONDS))
    pipeline_settings.cache_clear()
    yield
    pipeline_settings.cache_clear()


def _slot_options(durable: str, subject: str) -> dict[str, Any]:
    options = work_queue(Consumer.EXTRACTOR)
    options["durable"] = options["config"].durable_name = durable
    options["config"].filter_subject = subject
    return options


async def test_slow_messages_at_once_are_each_delivered_once(
    system: Stack, db: asyncpg.Pool, short_ack_deadline: None
) -> None:
    user, _ = await users.create_user(db, name="work-slots")
    row = await park_file(db, user.id, filename="slots.txt", data=b"slots")
    event = FileUploaded(file_id=row["id"], user_id=user.id, attempt=1)
    subject = "file.work-slots-test"
    broker = create_broker(system.nats_url)
    deliveries: list[int] = []
    running: Counter[str] = Counter()

    async def slow_step(*_: object) -> None:
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        await asyncio.sleep(STEP_SECONDS)
        running["now"] -= 1

    async def handler(
        event: FileUploaded, msg: NatsMessage, broker: NatsBroker = Context("broker")
    ) -> None:
        deliveries.append(msg.raw_message.metadata.num_delivered)
        await run_step(slow_step, event=event, msg=msg, pool=db, broker=broker)

    for _ in range(SLOTS):  # as `consumes` registers a step's slots
        broker.subscriber(subject, **_slot_options("test-work-slots", subject))(handler)
    await broker.start()
    try:
        for _ in range(MESSAGES):
            await broker.publish(event, subject, stream="ARTISAN")
        for _ in range(200):
            if len(deliveries) >= MESSAGES and running["now"] == 0:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(ACK_WAIT_SECONDS * 1.5)  # would a further delivery arrive?
    finally:
        await broker.stop()
    assert deliveries == [1] * MESSAGES
    assert running["most"] == SLOTS
