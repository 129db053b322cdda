"""A process catches up with saved models before it handles a message stamped newer, stamps
what it publishes with its own version, and otherwise asks the database no more than every
CHECK_EVERY_SECONDS."""

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from faststream.response import PublishCommand
from faststream.response.publish_type import PublishType

from shared.config import model_settings
from shared.db.model_settings import StoredModels
from shared.models import live
from shared.models.live import VERSION_HEADER, ModelsVersionMiddleware
from shared.models.saved import SavedModels

SAVED = {
    "version": 3,
    "llm_base_url": "http://127.0.0.1:11434/v1",
    "llm_model": "llama3",
    "llm_api_key": None,
    "embed_provider": "local",
    "embed_base_url": "",
    "embed_model": "",
    "embed_api_key": None,
    "weather_tool": None,
    "llm_roles": None,
}


class FakePool:
    """The one row of model_settings, and how often it was read."""

    def __init__(self) -> None:
        self.reads = 0

    async def fetchval(self, query: str) -> int:
        self.reads += 1
        return SAVED["version"]

    async def fetchrow(self, query: str) -> dict[str, Any]:
        return SAVED


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePool]:
    fake = FakePool()
    monkeypatch.setattr(live._Watch, "pool", fake)
    monkeypatch.setattr(live._Watch, "listener", SimpleNamespace(is_closed=lambda: False))
    live.apply(None)
    yield fake
    live.apply(None)


async def test_a_message_from_newer_settings_is_handled_with_them(pool: FakePool) -> None:
    seen = []

    async def handler(msg: Any) -> None:
        seen.append(model_settings().llm_model)

    message = SimpleNamespace(headers={VERSION_HEADER: "3"})
    await ModelsVersionMiddleware(None, context=None).consume_scope(handler, message)
    assert seen == ["llama3"] and live.models_version() == 3
    await ModelsVersionMiddleware(None, context=None).consume_scope(handler, message)
    assert pool.reads == 1  # the same stamp again: nothing to read


async def test_what_a_process_publishes_carries_its_version(pool: FakePool) -> None:
    sent = []

    async def publish(cmd: PublishCommand) -> None:
        sent.append(dict(cmd.headers))

    def command() -> PublishCommand:
        return PublishCommand("body", _publish_type=PublishType.PUBLISH, destination="x")

    await ModelsVersionMiddleware(None, context=None).publish_scope(publish, command())
    live.apply(StoredModels(3, SavedModels(llm_model="llama3")))
    await ModelsVersionMiddleware(None, context=None).publish_scope(publish, command())
    assert sent == [{}, {VERSION_HEADER: "3"}]
