"""Queue depth: a service reads its own durable consumers; one it cannot read has no series."""

from types import SimpleNamespace

from faststream.nats import NatsBroker
from nats.js.errors import NotFoundError
from prometheus_client import REGISTRY

from services.compressor.handlers import router
from shared.metrics.queues import durable_consumers, refresh


def test_a_service_knows_its_durable_consumers() -> None:
    broker = NatsBroker()
    broker.include_router(router)
    assert durable_consumers(broker) == ["compressor", "compressor-turns", "summariser"]


class FakeJetStream:
    """consumer_info answers for the consumers it knows; others are not found."""

    def __init__(self, infos: dict[str, SimpleNamespace]) -> None:
        self.infos = infos

    async def consumer_info(self, stream: str, consumer: str, timeout: float) -> SimpleNamespace:
        if consumer not in self.infos:
            raise NotFoundError
        return self.infos[consumer]


def broker_with(jetstream: FakeJetStream) -> SimpleNamespace:
    return SimpleNamespace(connection=SimpleNamespace(jetstream=lambda: jetstream))


def depth(consumer: str) -> tuple[float | None, float | None]:
    labels = {"consumer": consumer}
    return (
        REGISTRY.get_sample_value("artisan_consumer_pending_messages", labels),
        REGISTRY.get_sample_value("artisan_consumer_ack_pending_messages", labels),
    )


async def test_depths_are_set_and_an_unreadable_consumer_loses_its_series() -> None:
    info = SimpleNamespace(num_pending=12, num_ack_pending=3, num_redelivered=1)
    jetstream = FakeJetStream({"unit-a": info, "unit-b": info})
    await refresh(broker_with(jetstream), ["unit-a", "unit-b"])  # type: ignore[arg-type]
    assert depth("unit-a") == (12, 3)
    assert depth("unit-b") == (12, 3)

    del jetstream.infos["unit-b"]
    await refresh(broker_with(jetstream), ["unit-a", "unit-b"])  # type: ignore[arg-type]
    assert depth("unit-a") == (12, 3)
    assert depth("unit-b") == (None, None)
