"""GET /v1/search asks the context service (context.search) and never embeds or searches itself:
its reply is the response; no service, or a failed one, is a 503 that says what to do."""

import uuid
from collections.abc import AsyncIterator

import httpx
import nats.errors
import pytest
from fastapi import FastAPI
from faststream.nats import NatsBroker, NatsResponse, TestNatsBroker

from services.gateway.auth import require_user
from services.gateway.deps import get_broker
from services.gateway.errors import install_error_handlers
from services.gateway.fair_use.limits import FairUse
from services.gateway.memory import search_router as search
from shared.config import GatewaySettings
from shared.context_client import ERROR_HEADER
from shared.contracts import Request, SearchHit, SearchRequest, SearchResults
from shared.db.users import User

USER = User(id=uuid.uuid4(), name="u")
HIT = SearchHit(
    ref=1,
    file_id=str(uuid.uuid4()),
    filename="hiring.md",
    chunk_id=str(uuid.uuid4()),
    title="Hiring",
    char_start=0,
    char_end=80,
    line_start=1,
    line_end=3,
    snippet="engineers in Lisbon",
    score=0.0325,
)


class UnansweredBroker:
    """A bus on which nobody serves context.search: the request fails as nats-py fails it."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def request(self, *args: object, **kwargs: object) -> None:
        raise self.error


def gateway(broker: object) -> httpx.AsyncClient:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(search.router)
    app.state.fair_use = FairUse(GatewaySettings())
    app.dependency_overrides = {require_user: lambda: USER, get_broker: lambda: broker}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


@pytest.fixture
async def asked() -> AsyncIterator[tuple[NatsBroker, list[SearchRequest]]]:
    """A context service stand-in that records what it is asked and replies with one hit."""
    broker, requests = NatsBroker(), []

    @broker.subscriber(Request.CONTEXT_SEARCH.value)
    async def reply(request: SearchRequest) -> SearchResults:
        requests.append(request)
        return SearchResults(items=[HIT])

    async with TestNatsBroker(broker) as running:
        yield running, requests


async def test_the_context_service_reply_is_the_response(
    asked: tuple[NatsBroker, list[SearchRequest]],
) -> None:
    broker, requests = asked
    async with gateway(broker) as client:
        response = await client.get("/v1/search", params={"q": "engineers in Lisbon", "limit": 3})
    assert response.status_code == 200, response.text
    assert SearchResults.model_validate(response.json()) == SearchResults(items=[HIT])
    assert requests == [SearchRequest(user_id=USER.id, query="engineers in Lisbon", limit=3)]


@pytest.mark.parametrize("error", [nats.errors.NoRespondersError(), nats.errors.TimeoutError()])
async def test_no_context_service_is_a_503_saying_how_to_start_it(error: Exception) -> None:
    async with gateway(UnansweredBroker(error)) as client:
        response = await client.get("/v1/search", params={"q": "pricing"})
    assert response.status_code == 503
    assert "artisan up" in response.json()["detail"]


async def test_a_failed_search_is_a_503_naming_the_failure() -> None:
    broker = NatsBroker()

    @broker.subscriber(Request.CONTEXT_SEARCH.value)
    async def fail(request: SearchRequest) -> NatsResponse:
        return NatsResponse({"error": "x"}, headers={ERROR_HEADER: "searching failed: db down"})

    async with TestNatsBroker(broker) as running, gateway(running) as client:
        response = await client.get("/v1/search", params={"q": "pricing"})
    assert response.status_code == 503
    assert response.json()["detail"] == (
        "The context service failed: searching failed: db down. Try again."
    )
