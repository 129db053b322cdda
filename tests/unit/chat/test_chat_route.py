"""POST /v1/chat when no chat service answers: 503 with what to do, and no subscription or
stream slot left."""

import uuid

import nats.errors
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.gateway.auth import require_user
from services.gateway.chat import router as chat
from services.gateway.deps import get_broker, get_pool
from services.gateway.errors import install_error_handlers
from services.gateway.fair_use.limits import FairUse
from shared.config import GatewaySettings
from shared.db.users import User


class StandInSubscription:
    def __init__(self) -> None:
        self.unsubscribed = False

    async def unsubscribe(self) -> None:
        self.unsubscribed = True


class StandInConnection:
    def __init__(self) -> None:
        self.subscriptions: list[StandInSubscription] = []

    async def subscribe(self, subject: str) -> StandInSubscription:
        self.subscriptions.append(StandInSubscription())
        return self.subscriptions[-1]


class UnansweredBroker:
    """A bus on which nobody serves chat.request: the request fails as nats-py fails it."""

    def __init__(self, error: Exception) -> None:
        self.connection = StandInConnection()
        self.error = error

    async def request(self, *args: object, **kwargs: object) -> None:
        raise self.error


@pytest.mark.parametrize("error", [nats.errors.NoRespondersError(), nats.errors.TimeoutError()])
def test_no_chat_service_gives_503_and_unsubscribes(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def persona_conversation(*args: object, **kwargs: object) -> uuid.UUID:
        return uuid.uuid4()  # no database here: the question's conversation is made up

    monkeypatch.setattr(chat, "conversation_for_question", persona_conversation)
    broker = UnansweredBroker(error)
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(chat.router)
    app.state.fair_use = FairUse(GatewaySettings(max_streams_per_user=1))
    user = User(id=uuid.uuid4(), name="u")
    app.dependency_overrides = {
        require_user: lambda: user,
        get_broker: lambda: broker,
        get_pool: lambda: None,
    }
    client = TestClient(app)
    for _ in range(2):  # the one stream slot is free again after each refusal
        response = client.post("/v1/chat", json={"persona": "gunnar", "message": "hi"})
        assert response.status_code == 503
        assert "artisan up" in response.json()["detail"]
    assert all(subscription.unsubscribed for subscription in broker.connection.subscriptions)
    assert len(broker.connection.subscriptions) == 2
