"""An OpenAI client that hangs up before a whole (non-streamed) answer is ready stops it, as
closing a stream does: the chat service is told, abandons the answer and stores nothing."""

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator

import asyncpg
import httpx
import nats
import pytest
from openai import AsyncOpenAI

from shared.launcher.embedded import EmbeddedNats
from shared.launcher.stack import Stack
from tests.fakes.llm_responder import REALISTIC_ANSWERS, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, own_stack
from tests.integration.test_chat import PRICING_MEMO, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
QUESTION = {"role": "user", "content": "Why did we move from per-seat pricing to usage tiers?"}
writing = threading.Event()  # the model has been asked for the answer
released = threading.Event()  # the model's first answer hangs until the test lets it go


def held_answer(values: dict[str, str]) -> str:
    writing.set()
    released.wait(120)
    return REALISTIC_ANSWERS["chat_1a"](values)


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer(scripted_responder({"chat_1a": held_answer})) as server:
        yield server
        released.set()  # a request still hanging must not hold the server's shutdown


@pytest.fixture(scope="module")
def stop_system(
    tmp_path_factory: pytest.TempPathFactory, model_server: FakeModelServer
) -> Iterator[Stack]:
    env = {
        "ARTISAN_LLM_BASE_URL": model_server.base_url,
        "ARTISAN_LLM_API_KEY": "test-key",
        "ARTISAN_LLM_MODEL": "gpt-4o-mini",
        "ARTISAN_LLM_MAX_RETRIES": "0",
    }
    with own_stack(tmp_path_factory.mktemp("openai-stop"), env) as stack:
        yield stack


@pytest.fixture
async def client(stop_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(stop_system, "openai-stop") as client:
        yield client


async def test_hanging_up_on_a_whole_answer_stops_it(
    client: httpx.AsyncClient, stop_system: Stack
) -> None:
    await ready_file(client, "pricing.md", PRICING_MEMO)
    [embedded] = [e for e in stop_system.embedded if isinstance(e, EmbeddedNats)]
    bus = await nats.connect(stop_system.nats_url, token=embedded.token.get_secret_value())
    streams = await bus.subscribe("chat.stream.>")
    stops = await bus.subscribe("chat.stop.>")
    db = await asyncpg.connect(stop_system.database_url)
    body = {"model": "artisan-vlad", "messages": [QUESTION]}
    try:
        asking = asyncio.create_task(client.post("/v1/chat/completions", json=body, timeout=60))
        assert await asyncio.to_thread(writing.wait, 60)  # the model is writing the answer
        asking.cancel()  # the caller hangs up: httpx closes the connection
        stop = await stops.next_msg(timeout=30)
        request_id = stop.subject.removeprefix("chat.stop.")
        while True:  # the answer's end, however it ended
            message = await streams.next_msg(timeout=30)
            event = json.loads(message.data)
            if message.subject == f"chat.stream.{request_id}" and event["type"] != "token":
                break
        assert event["type"] == "stopped"
        assert await db.fetchval("SELECT count(*) FROM superjournal") == 0

        released.set()
        key = client.headers["Authorization"].removeprefix("Bearer ")
        base_url = f"{stop_system.gateway_url}/v1"
        async with AsyncOpenAI(base_url=base_url, api_key=key, max_retries=0) as caller:
            answer = await caller.chat.completions.create(model="artisan-vlad", messages=[QUESTION])
        rows = await db.fetch("SELECT id FROM superjournal")
        assert [str(row["id"]) for row in rows] == [answer.model_extra["artisan"]["turn_id"]]
    finally:
        await db.close()
        await bus.close()
