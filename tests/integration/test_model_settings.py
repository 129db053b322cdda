"""Connecting models in Settings on a running system (real NATS, PostgreSQL and services): the
next answer comes from the saved model without a restart, keys never leave in plain text, and a
change of embedder re-embeds only once confirmed."""

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import realistic_responder, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import wait_for_status
from tests.integration.test_chat import PRICING_MEMO, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
LLM_KEY = "sk-proj-Settings7fQ2mL9xW4vB8nK3pR6sY1"
EMBED_KEY = "pa-SettingsEmbedKey0123456789abcdefghijklmno"
WRITTEN = "In my own words: usage tiers gave customers predictable bills. [Ref: 1]"


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    responder = scripted_responder({"chat_1a": lambda values: WRITTEN}, realistic_responder)
    with FakeModelServer(responder) as server:
        yield server


def service_logs(stack: Stack) -> dict[str, str]:
    """What every service process wrote (`artisan up` keeps one log per process)."""
    folder = stack.supervisor.log_dir or Path()
    return {log.name: log.read_text(errors="replace") for log in folder.glob("*.log")}


async def every_process_says(stack: Stack, text: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while silent := [name for name, log in service_logs(stack).items() if text not in log]:
        assert time.monotonic() < deadline, f"{text!r} not in the logs of {silent}"
        await asyncio.sleep(0.1)


def connect_to(server: FakeModelServer, **extra: object) -> dict[str, object]:
    return {
        "llm_base_url": server.base_url,
        "llm_model": "fake-writer",
        "llm_api_key": LLM_KEY,
        "embed_provider": "local",
        **extra,
    }


async def test_offline_status_says_what_it_does_and_who_can_connect_a_model(
    admin: httpx.AsyncClient, member: httpx.AsyncClient
) -> None:
    mine = (await member.get("/v1/settings/models/status")).json()
    assert mine["offline"] and mine["headline"] == "Offline — answers quote your files"
    assert "word for word" in mine["explanation"] and mine["chat"]["provider"] == "local"
    assert "ask the admin" in mine["next_step"] and mine["can_configure"] is False
    theirs = (await admin.get("/v1/settings/models/status")).json()
    assert "connect a language model in Settings" in theirs["next_step"]
    assert theirs["can_configure"] is True

    for method, path in [
        ("GET", "/v1/settings/models"),
        ("PUT", "/v1/settings/models"),
        ("POST", "/v1/settings/models/test"),
    ]:
        response = await member.request(method, path, json={})
        assert response.status_code == 403, response.text
        assert "Only the admin of this Artisan" in response.json()["detail"]


async def test_a_saved_model_answers_the_next_question_without_a_restart(
    admin: httpx.AsyncClient, model_server: FakeModelServer, settings_system: Stack
) -> None:
    await ready_file(admin, "pricing.md", PRICING_MEMO)
    question = "Why did we move from per-seat pricing to usage tiers?"
    _, before = await chat(admin, persona="vlad", message=question)
    assert before["usage"]["model"] == "artisan-local-1" and WRITTEN not in before["answer"]
    pids = {p.label: p.process.pid for p in settings_system.supervisor.processes}

    tested = await admin.post("/v1/settings/models/test", json=connect_to(model_server))
    assert tested.json()["ok"], tested.text
    assert tested.json()["chat"]["message"].startswith("Connected: fake-writer answered in")
    saved = await admin.put("/v1/settings/models", json=connect_to(model_server))
    assert saved.status_code == 200, saved.text
    assert saved.json()["llm_key_set"] and saved.json()["source"] == "settings"
    # announced: every process reloads at once, also one that handles no message meanwhile
    await every_process_says(settings_system, f"Settings (version {saved.json()['version']})")

    _, after = await chat(admin, persona="vlad", message=question)
    assert after["usage"]["model"] == "fake-writer"
    assert "predictable bills" in after["answer"] and after["answer"].startswith("In my own words")
    calls = [
        r for r in model_server.chat_requests if r.headers["authorization"] == f"Bearer {LLM_KEY}"
    ]
    assert calls, "the saved key reached the endpoint"
    status = (await admin.get("/v1/settings/models/status")).json()
    assert not status["offline"] and status["chat"] == {
        "provider": "openai-compatible",
        "model": "fake-writer",
        "host": "127.0.0.1",
    }
    assert {p.label: p.process.pid for p in settings_system.supervisor.processes} == pids


async def test_a_key_is_never_returned_logged_or_stored_in_plain_text(
    admin: httpx.AsyncClient, model_server: FakeModelServer, settings_system: Stack
) -> None:
    responses = [
        await admin.put("/v1/settings/models", json=connect_to(model_server)),
        await admin.get("/v1/settings/models"),
        await admin.get("/v1/settings/models/status"),
        await admin.post("/v1/settings/models/test", json=connect_to(model_server)),
        await admin.put(
            "/v1/settings/models", json=connect_to(model_server, llm_api_key="x" * 1001)
        ),
        await admin.get("/openapi.json"),
    ]
    for response in responses:
        assert LLM_KEY not in response.text, response.request.url

    conn = await asyncpg.connect(settings_system.database_url)
    try:
        row = await conn.fetchrow("SELECT * FROM model_settings")
        dump = await conn.fetchval("SELECT row_to_json(s)::text FROM model_settings s")
    finally:
        await conn.close()
    stored = b"".join(bytes(value) for value in row.values() if isinstance(value, bytes))
    assert LLM_KEY.encode() not in stored and LLM_KEY not in dump
    assert row["llm_api_key"].startswith(b"gAAAAA")  # a Fernet token

    logs = service_logs(settings_system)
    assert logs and all(LLM_KEY not in text for text in logs.values()), list(logs)


async def test_a_wrong_key_or_address_is_told_plainly_and_quickly(
    admin: httpx.AsyncClient,
) -> None:
    # a server of its own: the module's may still be called by the services for the models an
    # earlier test saved (a turn being journaled), which would take the scripted 401
    with FakeModelServer(realistic_responder) as model_server:
        model_server.fail_with(401, body={"error": {"message": f"bad key {LLM_KEY}"}})
        settings = connect_to(model_server)
        refused = (await admin.post("/v1/settings/models/test", json=settings)).json()
    assert not refused["ok"] and not refused["chat"]["ok"]
    assert "rejected the API key" in refused["chat"]["message"]
    assert (
        LLM_KEY not in refused["chat"]["message"] and "ARTISAN_" not in refused["chat"]["message"]
    )

    closed = {**settings, "llm_base_url": "http://127.0.0.1:9/v1"}
    report = (await admin.post("/v1/settings/models/test", json=closed)).json()
    assert not report["chat"]["ok"] and "connection failed" in report["chat"]["message"]


async def test_a_key_is_kept_only_for_the_address_it_was_given_for(
    admin: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    await admin.put("/v1/settings/models", json=connect_to(model_server))
    same_place = connect_to(model_server, llm_api_key=None, llm_model="other-model")
    kept = (await admin.put("/v1/settings/models", json=same_place)).json()
    assert kept["llm_key_set"] and kept["llm_model"] == "other-model"
    moved = {**same_place, "llm_base_url": "http://127.0.0.1:9/v1"}
    dropped = (await admin.put("/v1/settings/models", json=moved)).json()
    assert not dropped["llm_key_set"]
    offline = (await admin.put("/v1/settings/models", json={"llm_api_key": ""})).json()
    assert offline["llm_base_url"] == "" and not offline["llm_key_set"]
    assert (await admin.get("/v1/settings/models/status")).json()["offline"]


async def test_a_new_embedder_re_embeds_what_is_stored_only_once_confirmed(
    admin: httpx.AsyncClient, model_server: FakeModelServer, settings_system: Stack
) -> None:
    record = await ready_file(admin, "pricing-notes.md", PRICING_MEMO)
    voyage = {
        "embed_provider": "voyage",
        "embed_base_url": model_server.base_url,
        "embed_api_key": EMBED_KEY,
    }
    asked = await admin.put("/v1/settings/models", json=voyage)
    assert asked.status_code == 409 and "re-embeds everything stored" in asked.json()["detail"]
    unchanged = (await admin.get("/v1/settings/models")).json()
    assert unchanged["embed_provider"] == "local"

    confirmed = await admin.put("/v1/settings/models", json={**voyage, "reembed": True})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["reembedding"] >= 1
    await wait_for_status(admin, record["id"], "ready", timeout=60)
    space = confirmed.json()["embedding_space"]
    assert space["model"] == "voyage-3-large" and space["dimension"] == 1024
    embedded = [
        r for r in model_server.embedding_requests if r.headers["authorization"].endswith(EMBED_KEY)
    ]
    assert embedded, "the embedder service used the saved Voyage key"
    conn = await asyncpg.connect(settings_system.database_url)
    try:
        missing = await conn.fetchval(
            "SELECT count(*) FROM file_chunks WHERE file_id = $1::uuid AND embedding IS NULL",
            record["id"],
        )
    finally:
        await conn.close()
    assert missing == 0
    found = (await admin.get("/v1/search", params={"q": "usage tiers predictable bills"})).json()
    assert found["items"], "search works in the new space"
