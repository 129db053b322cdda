"""One fake model server for the module's tests, reset between them, and a usage recorder."""

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from shared.config import ModelSettings
from shared.providers.remote.structured import forget_dialects
from shared.usage import ModelCall, WorkContext, set_usage_sink
from tests.fakes.model_server import FakeModelServer, empty_object_responder


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def server(model_server: FakeModelServer) -> Iterator[FakeModelServer]:
    """The shared server with no faults, no latency and the default responder, met afresh (no
    dialect learnt from an earlier test)."""
    forget_dialects()
    yield model_server
    _wait_until_idle(model_server)  # requests a client gave up on may still be sleeping
    model_server.reset()
    model_server.responder = empty_object_responder
    model_server.latency = 0.0


@pytest.fixture
def usage_calls() -> Iterator[list[ModelCall]]:
    """Every model call recorded while the test runs."""
    calls: list[ModelCall] = []

    async def sink(recorded: Sequence[tuple[ModelCall, WorkContext | None]]) -> None:
        calls.extend(call for call, _ in recorded)

    set_usage_sink(sink)
    yield calls
    set_usage_sink(None)


SettingsFactory = Callable[..., ModelSettings]


@pytest.fixture
def make_settings(server: FakeModelServer) -> SettingsFactory:
    """Explicit settings pointing every remote provider at the fake server (no env involved)."""

    def make(**overrides: Any) -> ModelSettings:
        return ModelSettings(**(_defaults(server) | overrides))

    return make


def _defaults(server: FakeModelServer) -> dict[str, Any]:
    return {
        "llm_base_url": server.base_url,
        "llm_api_key": "test-key",
        "llm_model": "test-chat-model",
        "llm_timeout_seconds": 2.0,
        "llm_max_retries": 1,
        "llm_concurrency": 8,
        "voyage_api_key": "test-key",
        "voyage_base_url": server.base_url,
        "voyage_model": "voyage-3-large",
        "openai_api_key": "test-key",
        "openai_base_url": server.base_url,
        "openai_embed_model": "text-embedding-3-small",
        "embed_batch_size": 128,
    }


def _wait_until_idle(server: FakeModelServer, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while server.in_flight and time.monotonic() < deadline:
        time.sleep(0.02)
