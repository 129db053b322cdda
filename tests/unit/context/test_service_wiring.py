"""The context service's wiring (FastStream's TestNatsBroker, no server): a bundle or the ranked
passages are replied, and a failure is replied as one, so callers get a clear error instead of a
timeout."""

import uuid

import pytest
from faststream.nats import NatsBroker, TestNatsBroker

from services.context import handlers
from shared.context_client import ContextBuildFailed, request_context, request_search
from shared.contracts import (
    ContextBundle,
    ContextRequest,
    SearchHit,
    SearchRequest,
    SearchResults,
)

REQUEST = ContextRequest(user_id=uuid.uuid4(), persona="gunnar", query="pricing?")
SEARCH = SearchRequest(user_id=REQUEST.user_id, query="pricing?", limit=3)
HIT = SearchHit(
    ref=1,
    file_id=str(uuid.uuid4()),
    filename="pricing.md",
    chunk_id=str(uuid.uuid4()),
    title="Pricing",
    char_start=0,
    char_end=42,
    line_start=1,
    line_end=3,
    snippet="usage tiers",
    score=0.03,
)


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


async def test_the_ranked_passages_are_the_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[SearchRequest] = []

    async def search(pool: object, request: SearchRequest) -> SearchResults:
        asked.append(request)
        return SearchResults(items=[HIT])

    monkeypatch.setattr(handlers, "search", search)
    async with TestNatsBroker(broker_with_service()) as broker:
        results = await request_search(broker, SEARCH, timeout=2)
    assert results == SearchResults(items=[HIT])
    assert asked == [SEARCH]


async def test_a_failed_search_is_replied_as_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async def search(pool: object, request: SearchRequest) -> SearchResults:
        raise RuntimeError("database unavailable")

    monkeypatch.setattr(handlers, "search", search)
    async with TestNatsBroker(broker_with_service()) as broker:
        with pytest.raises(ContextBuildFailed, match=r"searching failed: .*database unavailable"):
            await request_search(broker, SEARCH, timeout=2)
