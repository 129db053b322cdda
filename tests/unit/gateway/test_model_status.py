"""The status chip's words: which model does which work (issue 28, part 2), and a chat model that
does not answer shown as such, probed cheaply and remembered for a few seconds (part 6)."""

import asyncio
from collections.abc import Iterator

import pytest

from services.gateway.models import probe
from services.gateway.models.status import roles_of
from shared.config import ModelSettings
from shared.launcher.embedded import free_port
from shared.models.server_settings import model_server_settings
from tests.fakes.model_server import FakeModelServer


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def settings_read_again() -> Iterator[None]:
    yield
    model_server_settings.cache_clear()  # the next test reads the environment it sets


def embedded_model_at(monkeypatch: pytest.MonkeyPatch, base_url: str, health_url: str) -> None:
    """What `artisan up --model` tells the gateway about the model it serves."""
    monkeypatch.setenv("ARTISAN_MODEL_BASE_URL", base_url)
    monkeypatch.setenv("ARTISAN_MODEL_HEALTH_URL", health_url)
    model_server_settings.cache_clear()


def said(settings: ModelSettings) -> str:
    return " · ".join(f"{role.work}: {role.by}" for role in roles_of(settings))


def test_offline_both_answers_and_reading_files_are_the_offline_rules() -> None:
    offline = ModelSettings(llm_base_url="", llm_api_key=None)
    assert said(offline) == "Answers: offline rules · Reading files: offline rules"


def test_the_embedded_model_answers_and_the_rules_read_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedded_model_at(monkeypatch, "http://127.0.0.1:8091/v1", "http://127.0.0.1:8091/health")
    local = ModelSettings(
        llm_base_url="http://127.0.0.1:8091/v1", llm_model="SmolLM2", llm_roles="answers"
    )
    assert said(local) == "Answers: SmolLM2 (this machine) · Reading files: offline rules"


def test_a_remote_model_doing_everything_is_named_with_its_host() -> None:
    remote = ModelSettings(
        llm_base_url="https://api.fireworks.ai/inference/v1", llm_model="qwen3", llm_roles="all"
    )
    assert said(remote) == (
        "Answers: qwen3 (api.fireworks.ai) · Reading files: qwen3 (api.fireworks.ai)"
    )


async def test_a_model_that_answers_is_probed_once_with_its_key_and_remembered(
    server: FakeModelServer,
) -> None:
    settings = ModelSettings(llm_base_url=server.base_url, llm_api_key="sk-probe", llm_model="m")
    found = await asyncio.gather(*(probe.reach(settings) for _ in range(5)))
    assert all(reach.answers for reach in found)
    [asked] = server.model_list_requests  # many status calls at once: one request
    assert asked.path == "/v1/models" and asked.headers["authorization"] == "Bearer sk-probe"
    assert (await probe.reach(settings)).answers and len(server.model_list_requests) == 1


async def test_a_model_that_does_not_answer_is_unreachable_within_the_timeout() -> None:
    gone = ModelSettings(llm_base_url=f"http://127.0.0.1:{free_port()}/v1", llm_model="m")
    reach = await asyncio.wait_for(probe.reach(gone), probe.PROBE_TIMEOUT_SECONDS + 1)
    assert not reach.answers and reach.reason == "nothing answers at that address"


async def test_the_embedded_model_is_probed_at_its_health(
    monkeypatch: pytest.MonkeyPatch, server: FakeModelServer
) -> None:
    # its /health answers 404 on the fake (no such path), as a server that is there would
    embedded_model_at(monkeypatch, server.base_url, server.base_url.removesuffix("/v1") + "/hi")
    local = ModelSettings(llm_base_url=server.base_url, llm_model="SmolLM2")
    assert probe.is_embedded(local)
    assert (await probe.reach(local)).answers
    assert server.model_list_requests == []  # not its model list: its health
