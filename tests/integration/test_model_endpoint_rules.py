"""Where the admin may point the models, through the gateway's real API on a system of its own
(real NATS, PostgreSQL and services) whose operator allows one model host: metadata and
link-local addresses are refused with what to do, a loopback one is accepted and said to be one,
and a host the operator does not allow is refused on save, test and re-embedding."""

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from shared.config import model_settings, use_saved_models
from shared.launcher.reembed import queue_reembedding
from shared.launcher.stack import Stack
from shared.models.hosts import ModelHostRefused
from shared.providers import registry
from tests.fakes.llm_responder import realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, own_stack

pytestmark = pytest.mark.asyncio(loop_scope="session")
ALLOWED = "127.0.0.1"  # the operator's ARTISAN_MODEL_HOSTS_ALLOWED
KEY = "sk-proj-EndpointRules7fQ2mL9xW4vB8nK3pR6"


@pytest.fixture(scope="module")
def ruled_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path
) -> Iterator[Stack]:
    env = {"ARTISAN_MODEL_HOSTS_ALLOWED": ALLOWED}
    with own_stack(tmp_path_factory.mktemp("rules"), env, pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture
async def admin(ruled_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(ruled_system, "rules-admin", admin=True) as client:
        yield client


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer(realistic_responder) as server:
        yield server


def chat_at(base_url: str) -> dict[str, object]:
    return {"llm_base_url": base_url, "llm_model": "fake-writer", "llm_api_key": KEY}


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (chat_at("http://169.254.169.254/latest/meta-data"), "must not be a cloud metadata"),
        (chat_at("http://2852039166/v1"), "must not be a cloud metadata"),
        (chat_at("http://[::ffff:169.254.169.254]/v1"), "must not be a cloud metadata"),
        (chat_at("http://metadata.google.internal/v1"), "must not be a cloud metadata"),
        (chat_at("http://169.254.10.10:8000/v1"), "must not be a link-local address"),
        (chat_at("http://user:pw@127.0.0.1:8000/v1"), "put the key in the API key field"),
        (
            {"embed_provider": "openai", "embed_base_url": "http://[fe80::1]:8080/v1"},
            "must not be a link-local address",
        ),
    ],
)
async def test_a_metadata_or_link_local_address_is_refused_with_what_to_do(
    admin: httpx.AsyncClient, settings: dict[str, object], said: str
) -> None:
    for method, path in [("PUT", "/v1/settings/models"), ("POST", "/v1/settings/models/test")]:
        response = await admin.request(method, path, json=settings)
        assert response.status_code == 422, response.text
        detail = response.json()["detail"]
        assert said in detail, detail
        assert "pw@" not in detail
    assert "use the model server's own address" in detail or "API key field" in detail
    assert (await admin.get("/v1/settings/models")).json()["llm_base_url"] == ""


async def test_a_loopback_address_is_accepted_and_said_to_be_one(
    admin: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    settings = chat_at(model_server.base_url)
    tested = await admin.post("/v1/settings/models/test", json=settings)
    assert tested.status_code == 200, tested.text
    chat = tested.json()["chat"]
    assert chat["ok"] and chat["network"] == "loopback" and chat["status_code"] == 200
    assert chat["spoke_openai"] and chat["models"] == ["fake"]

    saved = await admin.put("/v1/settings/models", json=settings)
    assert saved.status_code == 200, saved.text
    assert saved.json()["llm_network"] == "loopback" and saved.json()["embed_network"] is None
    assert (await admin.get("/v1/settings/models")).json()["llm_network"] == "loopback"


async def test_an_endpoint_error_comes_back_as_its_status_never_its_body(
    admin: httpx.AsyncClient,
) -> None:
    secret = "AKIAIOSFODNN7EXAMPLE internal-db.corp:5432 password=hunter2hunter2"
    with FakeModelServer(realistic_responder) as server:
        server.fail_with(500, body=f"<html>{secret}</html>")
        report = await admin.post("/v1/settings/models/test", json=chat_at(server.base_url))
    assert report.status_code == 200, report.text
    chat = report.json()["chat"]
    assert not chat["ok"] and chat["status_code"] == 500 and "fails (HTTP 500)" in chat["message"]
    for piece in ("AKIAIOSFODNN7EXAMPLE", "internal-db", "hunter2", "<html>"):
        assert piece not in report.text


async def test_a_host_the_operator_does_not_allow_is_refused(
    admin: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    by_name = model_server.base_url.replace("127.0.0.1", "localhost")
    voyage = {"embed_provider": "voyage", "embed_base_url": by_name, "embed_api_key": KEY}
    for method, path, settings in [
        ("PUT", "/v1/settings/models", chat_at(by_name)),
        ("POST", "/v1/settings/models/test", chat_at(by_name)),
        ("PUT", "/v1/settings/models", {**voyage, "reembed": True}),
        ("PUT", "/v1/settings/models", {"embed_provider": "voyage", "embed_api_key": KEY}),
    ]:
        response = await admin.request(method, path, json=settings)
        assert response.status_code == 422, response.text
        assert f"ARTISAN_MODEL_HOSTS_ALLOWED: {ALLOWED}" in response.json()["detail"]
    assert (await admin.get("/v1/settings/models")).json()["embed_provider"] == "local"


async def test_re_embedding_refuses_an_embedder_the_operator_no_longer_allows(
    admin: httpx.AsyncClient,
    model_server: FakeModelServer,
    ruled_system: Stack,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    voyage = {"embed_provider": "voyage", "embed_base_url": model_server.base_url}
    saved = await admin.put("/v1/settings/models", json={**voyage, "reembed": True})
    assert saved.status_code == 200, saved.text

    # the operator narrows the list after the admin saved; `artisan reembed` reads it
    monkeypatch.setenv("ARTISAN_MODEL_HOSTS_ALLOWED", "ollama:11434")
    model_settings.cache_clear()
    try:
        with pytest.raises(ModelHostRefused, match="Not re-embedding: the embeddings base URL"):
            await queue_reembedding(ruled_system.database_url, ruled_system.nats_url)
        said = await asyncio.to_thread(_artisan_reembed, ruled_system)
        assert said.returncode == 2
        assert "error: nothing was re-embedded: Not re-embedding" in said.stderr
        assert "Traceback" not in said.stderr
    finally:
        use_saved_models(None)  # this process's view of the saved models, as before
        registry.forget_providers()  # and its providers: the voyage embedder built above goes


def _artisan_reembed(stack: Stack) -> subprocess.CompletedProcess[str]:
    """`artisan reembed` as an operator runs it, under the narrowed list (this process's env)."""
    env = {
        **os.environ,
        "ARTISAN_NATS_URL": stack.nats_url,
        "ARTISAN_DATABASE_URL": stack.database_url,
        "ARTISAN_PORT": "1",  # no gateway there: queue and return
    }
    artisan = str(Path(sys.executable).parent / "artisan")
    return subprocess.run(
        [artisan, "reembed"], env=env, capture_output=True, text=True, timeout=120
    )
