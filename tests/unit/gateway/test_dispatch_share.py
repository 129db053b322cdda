"""The work-conserving file share: a lone user gets more files in flight only while every
pipeline consumer keeps up (no more waiting than in progress)."""

from nats.js.api import ConsumerConfig, ConsumerInfo

from services.gateway.dispatch.dispatcher import keeps_up
from shared.contracts import Consumer


def info(name: str, *, pending: int | None, in_progress: int | None) -> ConsumerInfo:
    return ConsumerInfo(
        name=name,
        stream_name="ARTISAN",
        config=ConsumerConfig(durable_name=name),
        created=0,
        num_pending=pending,
        num_ack_pending=in_progress,
    )


def test_an_idle_pipeline_keeps_up() -> None:
    assert keeps_up([info(c.value, pending=0, in_progress=0) for c in Consumer])


def test_workers_busy_with_at_most_as_much_waiting_keep_up() -> None:
    assert keeps_up(
        [
            info(Consumer.COMPRESSOR, pending=64, in_progress=64),
            info(Consumer.CHUNKER, pending=0, in_progress=8),
        ]
    )


def test_one_backed_up_consumer_is_enough_to_hold_the_extra_back() -> None:
    assert not keeps_up(
        [
            info(Consumer.EXTRACTOR, pending=0, in_progress=2),
            info(Consumer.CHUNKER, pending=9, in_progress=8),
        ]
    )


def test_consumers_that_are_not_the_pipelines_do_not_count() -> None:
    assert keeps_up([info("someone-elses", pending=500, in_progress=0)])


def test_a_consumer_that_reports_no_counts_is_idle() -> None:
    assert keeps_up([info(Consumer.EXTRACTOR, pending=None, in_progress=None)])
