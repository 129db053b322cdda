"""The context service's wiring (FastStream's TestNatsBroker, no server): a bundle is replied,
and a failure is replied as one, so callers get a clear error instead of a timeout."""

import uuid

import pytest
from faststream.nats import NatsBroker, TestNatsBroker

from services.context import handlers
from shared.context_client import ContextBuildFailed, request_context
from shared.contracts import ContextBundle, ContextRequest

REQUEST = ContextRequest(user_id=uuid.uuid4(), persona="gunnar", query="pricing?")


def broker_with_service() -> NatsBroker:
    broker = NatsBroker()
    broker.include_router(handlers.router)
    broker.context.set_global("pool", object())
    return broker


async def test_the_bundle_is_the_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    async def build(pool: object, request: ContextRequest) -> ContextBundle:
        return ContextBundle(
            persona=request.persona,
            query=request.query,
            path="search",
            sections=[],
            references=[],
            total_tokens=0,
            cap_tokens=10,
            retrieval_confidence=0.0,
            journal_entries=0,
        )

    monkeypatch.setattr(handlers, "build_context", build)
    async with TestNatsBroker(broker_with_service()) as broker:
        bundle = await request_context(broker, REQUEST, timeout=2)
    assert (bundle.persona, bundle.query, bundle.cap_tokens) == ("gunnar", "pricing?", 10)


async def test_a_failure_is_replied_as_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async def build(pool: object, request: ContextRequest) -> ContextBundle:
        raise RuntimeError("database unavailable")

    monkeypatch.setattr(handlers, "build_context", build)
    async with TestNatsBroker(broker_with_service()) as broker:
        with pytest.raises(ContextBuildFailed, match="database unavailable"):
            await request_context(broker, REQUEST, timeout=2)
