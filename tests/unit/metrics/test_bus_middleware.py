"""FastStream's Prometheus middleware as create_broker installs it: handler counts, durations
with buckets past 10 s, and exceptions, labelled by subject, never by an id."""

import uuid

import pytest
from faststream.nats import JStream, NatsBroker, PullSub, TestNatsBroker
from prometheus_client import CollectorRegistry

from shared.contracts import Subject, progress_subject
from shared.metrics.bus import prometheus_middleware


def labels_of(registry: CollectorRegistry) -> set[str]:
    return {
        value
        for metric in registry.collect()
        for sample in metric.samples
        for value in sample.labels.values()
    }


async def test_handled_and_failed_messages_are_counted_by_subject() -> None:
    registry = CollectorRegistry()
    broker = NatsBroker(middlewares=[prometheus_middleware(registry)])

    @broker.subscriber("progress.*.*")
    async def on_progress(body: dict) -> None:
        pass

    @broker.subscriber(Subject.CHUNK_COMPRESSED.value)
    async def on_chunk(body: dict) -> None:
        raise RuntimeError("the model went away")

    user_id, file_id = uuid.uuid4(), uuid.uuid4()
    async with TestNatsBroker(broker) as test_broker:
        for _ in range(3):
            await test_broker.publish({"n": 1}, progress_subject(user_id, file_id))
        with pytest.raises(RuntimeError):
            await test_broker.publish({"n": 1}, Subject.CHUNK_COMPRESSED.value)

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, {"app_name": "artisan", "broker": "nats", **labels})

    assert value("artisan_received_messages_total", handler="progress.*") == 3
    assert (
        value("artisan_published_messages_total", destination="progress.*", status="success") == 3
    )
    assert (
        value("artisan_received_processed_messages_duration_seconds_count", handler="progress.*")
        == 3
    )
    assert (
        value(
            "artisan_received_processed_messages_duration_seconds_bucket",
            handler="chunk.compressed",
            le="300.0",
        )
        == 1
    )
    assert (
        value(
            "artisan_received_processed_messages_exceptions_total",
            handler="chunk.compressed",
            exception_type="RuntimeError",
        )
        == 1
    )
    assert not any(str(user_id) in label or str(file_id) in label for label in labels_of(registry))


def test_a_second_broker_in_one_process_shares_the_metrics() -> None:
    registry = CollectorRegistry()
    prometheus_middleware(registry)
    prometheus_middleware(registry)  # a second create_broker: no "Duplicated timeseries"


async def test_a_batch_handler_is_counted_under_its_subject() -> None:
    """A batch consumer (pull batches) is labelled like any handler (the test broker hands it
    one message a batch, so this does not tell per-message from per-batch counting)."""
    registry = CollectorRegistry()
    broker = NatsBroker(middlewares=[prometheus_middleware(registry)])
    stream = JStream("METRICS_TEST", declare=False)
    batch = PullSub(batch_size=10, batch=True)

    @broker.subscriber(Subject.CHUNK_READY_FACTUAL.value, stream=stream, pull_sub=batch)
    async def on_chunks(bodies: list[dict]) -> None:
        pass

    async with TestNatsBroker(broker) as test_broker:
        for _ in range(3):
            await test_broker.publish(
                {"n": 1}, Subject.CHUNK_READY_FACTUAL.value, stream="METRICS_TEST"
            )

    labels = {"app_name": "artisan", "broker": "nats", "handler": "chunk.ready.factual"}
    assert registry.get_sample_value("artisan_received_messages_total", labels) == 3
