"""Settings tells the truth, on a running system of its own (issue 28, parts 2 and 6): the status
says which model does which work and the admin chooses it, a chat model that does not answer is
shown as unreachable with what to do, and an answer that fails says so in words on both chat
routes — never an error's name, the endpoint's address or its reply."""

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import EventSource

from services.gateway.models.probe import REMEMBER_SECONDS
from services.gateway.models.setup import START_A_LOCAL_MODEL
from shared.launcher.embedded import free_port
from shared.launcher.stack import Stack
from tests.fakes.llm_responder import prompt_name, realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import upload, wait_for_status
from tests.integration.test_chat import HIRING_PLAN, OTHER_PRICING, PRICING_MEMO, ready_file
from tests.integration.test_model_settings import connect_to

pytestmark = pytest.mark.asyncio(loop_scope="session")
PROVIDER_SAYS = "shard eu-west-3b overloaded, request id 7f3e"  # the endpoint's own words


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer(realistic_responder) as server:
        yield server


async def status_of(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/v1/settings/models/status")
    assert response.status_code == 200, response.text
    return response.json()


def roles_said(status: dict[str, Any]) -> str:
    return " · ".join(f"{role['work']}: {role['by']}" for role in status["roles"])


def prompts_sent(server: FakeModelServer, since: int) -> set[str]:
    return {prompt_name(request.json) for request in server.chat_requests[since:]}


async def test_offline_the_rules_do_everything_and_settings_says_how_to_run_a_model_here(
    admin: httpx.AsyncClient,
) -> None:
    status = await status_of(admin)
    assert roles_said(status) == "Answers: offline rules · Reading files: offline rules"
    assert status["reachable"] is None and status["unreachable"] is None
    view = (await admin.get("/v1/settings/models")).json()
    assert view["llm_roles"] == "all"
    assert view["local_model"] == {
        "running": False,
        "base_url": "",
        "model": "",
        "how_to_start": START_A_LOCAL_MODEL,
    }
    assert "artisan up --model smollm2" in START_A_LOCAL_MODEL


async def test_the_admin_chooses_which_work_the_model_does_and_every_service_follows(
    admin: httpx.AsyncClient, member: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    answers_only = connect_to(model_server, llm_roles="answers")
    saved = await admin.put("/v1/settings/models", json=answers_only)
    assert saved.status_code == 200 and saved.json()["llm_roles"] == "answers", saved.text
    said = "Answers: fake-writer (this machine) · Reading files: offline rules"
    assert roles_said(await status_of(member)) == said
    assert "read by the offline rules" in (await status_of(member))["explanation"]
    before = len(model_server.chat_requests)
    await ready_file(admin, "hiring.md", HIRING_PLAN)
    assert prompts_sent(model_server, before) == set()  # the offline rules read it

    kept = await admin.put("/v1/settings/models", json=connect_to(model_server, llm_roles=None))
    assert kept.json()["llm_roles"] == "answers"  # left out: kept as it was
    saved = await admin.put("/v1/settings/models", json=connect_to(model_server, llm_roles="all"))
    assert saved.json()["llm_roles"] == "all"
    said = "Answers: fake-writer (this machine) · Reading files: fake-writer (this machine)"
    assert roles_said(await status_of(member)) == said
    before = len(model_server.chat_requests)
    await ready_file(admin, "offsite.md", OTHER_PRICING)
    assert "classify" in prompts_sent(model_server, before)


async def test_a_model_that_does_not_answer_is_shown_unreachable_with_what_to_do(
    admin: httpx.AsyncClient, member: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    await admin.put("/v1/settings/models", json=connect_to(model_server))
    status = await status_of(member)
    assert status["reachable"] is True and status["unreachable"] is None
    assert model_server.model_list_requests[-1].headers["authorization"].startswith("Bearer ")

    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    await admin.put(
        "/v1/settings/models", json={**connect_to(model_server), "llm_base_url": nowhere}
    )
    theirs, mine = await status_of(admin), await status_of(member)
    assert theirs["reachable"] is False and mine["reachable"] is False
    assert theirs["unreachable"].startswith(
        "fake-writer at this machine does not answer: nothing answers at that address."
    )
    assert "Test connection in Settings" in theirs["unreachable"]
    assert mine["unreachable"].endswith("ask the admin of this Artisan to look at it.")


async def test_a_model_that_stops_answering_turns_unreachable_within_seconds(
    admin: httpx.AsyncClient,
) -> None:
    with FakeModelServer(realistic_responder) as server:
        await admin.put("/v1/settings/models", json=connect_to(server))
        assert (await status_of(admin))["reachable"] is True
    deadline = time.monotonic() + REMEMBER_SECONDS + 5
    while (await status_of(admin))["reachable"]:
        assert time.monotonic() < deadline, "still shown as answering"
        await asyncio.sleep(0.5)


async def test_a_failed_answer_is_told_in_words_on_both_chat_routes(
    admin: httpx.AsyncClient, settings_system: Stack
) -> None:
    with FakeModelServer(realistic_responder) as failing:
        await admin.put("/v1/settings/models", json=connect_to(failing, llm_roles="answers"))
        record = await upload(admin, "pricing.md", PRICING_MEMO)  # read by the offline rules
        await wait_for_status(admin, record["id"], "ready", timeout=60)
        failing.fail_with(500, body={"error": {"message": PROVIDER_SAYS}}, times=1000)
        question = {"persona": "vlad", "message": "Why did we move to usage tiers?"}
        told = await chat_error(admin, question)
        completion = await admin.post(
            "/v1/chat/completions",
            json={"model": "artisan-vlad", "messages": [{"role": "user", "content": "Why?"}]},
            timeout=60,
        )
    assert told.startswith("The language model (fake-writer) did not answer")
    assert completion.status_code == 502
    assert completion.json()["error"]["message"].startswith(
        "The language model (fake-writer) did not answer"
    )
    for said in (told, completion.json()["error"]["message"]):
        assert "Error" not in said and "127.0.0.1" not in said and "eu-west" not in said


async def chat_error(client: httpx.AsyncClient, body: dict[str, str]) -> str:
    """The text of the `error` event that ends an answer."""
    async with client.stream("POST", "/v1/chat", json=body, timeout=60) as response:
        assert response.status_code == 200, await response.aread()
        async for event in EventSource(response).aiter_sse():
            if event.event == "error":
                return json.loads(event.data)["detail"]
            assert event.event != "done", "the answer did not fail"
    raise AssertionError("the stream ended without an error event")
