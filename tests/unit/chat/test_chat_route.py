"""POST /v1/chat when no chat service answers: 503 with what to do, and no subscription left."""

import uuid

import nats.errors
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.gateway.auth import require_user
from services.gateway.deps import get_broker, get_pool
from services.gateway.errors import install_error_handlers
from services.gateway.routes import chat
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
def test_no_chat_service_gives_503_and_unsubscribes(error: Exception) -> None:
    broker = UnansweredBroker(error)
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(chat.router)
    user = User(id=uuid.uuid4(), name="u")
    app.dependency_overrides = {
        require_user: lambda: user,
        get_broker: lambda: broker,
        get_pool: lambda: None,
    }
    response = TestClient(app).post("/v1/chat", json={"persona": "gunnar", "message": "hi"})
    assert response.status_code == 503
    assert "artisan up" in response.json()["detail"]
    [subscription] = broker.connection.subscriptions
    assert subscription.unsubscribed
