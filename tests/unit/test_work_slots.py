"""A step that works on N messages at once is N pull subscribers of one durable consumer,
each fetching one message when it is free (tests/integration/test_work_slots.py shows why)."""

import asyncpg
from faststream.nats import NatsBroker, NatsRouter

from shared.contracts import Consumer, FileUploaded, Subject
from shared.pipeline import consumes


def test_a_step_gets_one_single_message_subscriber_per_slot() -> None:
    router = NatsRouter()

    @consumes(router, Subject.FILE_UPLOADED, Consumer.EXTRACTOR, concurrency=3)
    async def step(event: FileUploaded, pool: asyncpg.Pool, broker: NatsBroker) -> None:
        del event, pool, broker

    slots = router.subscribers
    assert len(slots) == 3
    assert {s.config.durable_name for s in slots} == {Consumer.EXTRACTOR.value}
    assert [s.pull_sub.batch_size for s in slots] == [1, 1, 1]
    assert not any(hasattr(s, "max_workers") for s in slots)  # no queue of fetched messages
