"""Chat through remote models: the real openai client streams call 1A from a local wire-format
server, and call 1B removes the sentence the model made up.

Stopping an answer: the asker leaves mid-answer (Stop in the web client closes the stream; an
OpenAI client hangs up before a whole, non-streamed answer is ready), the gateway tells the chat
service, which cancels the model call and stores nothing; asked again, the question is answered
and stored once."""

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import nats
import pytest
from nats.aio.subscription import Subscription
from openai import AsyncOpenAI

from services.chat.answering import TURN_NAMESPACE
from services.gateway.chat.relay import SERVICE_GONE
from shared.contracts import ALIVE_SECONDS, ANSWER_SILENCE_SECONDS
from shared.launcher.embedded import EmbeddedNats
from shared.launcher.stack import Stack
from tests.fakes.llm_responder import REALISTIC_ANSWERS, prompt_name, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, heal_until_all_running, own_stack
from tests.integration.test_chat import PRICING_MEMO, assert_citations_resolve, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
QUESTION = "Why did we move from per-seat pricing to usage tiers?"
writing = threading.Event()  # the model has been asked for the answer
released = threading.Event()  # each test's first answer hangs until the test lets it go
INVENTED = "The board also approved a new office in Lisbon. [Ref: 1]"


def held_answer(values: dict[str, str]) -> str:
    writing.set()
    released.wait(120)
    return REALISTIC_ANSWERS["chat_1a"](values)


def embellished_answer(values: dict[str, str]) -> str:
    """A model that answers well, then adds a claim no source makes, with a citation."""
    return f"{REALISTIC_ANSWERS['chat_1a'](values)} {INVENTED}"


HELD = scripted_responder({"chat_1a": held_answer})
EMBELLISHED = scripted_responder({"chat_1a": embellished_answer})


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer(HELD) as server:
        yield server
        released.set()  # a request still hanging must not hold the server's shutdown


@pytest.fixture
def embellishing(model_server: FakeModelServer) -> Iterator[None]:
    """The model's answers come at once, each with a made-up sentence, instead of held."""
    model_server.responder = EMBELLISHED
    yield
    model_server.responder = HELD


@pytest.fixture(scope="module")
def remote_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, model_server: FakeModelServer
) -> Iterator[Stack]:
    env = {
        "ARTISAN_LLM_BASE_URL": model_server.base_url,
        "ARTISAN_LLM_API_KEY": "test-key",
        "ARTISAN_LLM_MODEL": "gpt-4o-mini",
        "ARTISAN_LLM_MAX_RETRIES": "0",
        "ARTISAN_VOYAGE_API_KEY": "test-key",
        "ARTISAN_EMBED_PROVIDER": "voyage",
        "ARTISAN_VOYAGE_BASE_URL": model_server.base_url,
    }
    with own_stack(tmp_path_factory.mktemp("chat-remote"), env, pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture(autouse=True)
def held_again(model_server: FakeModelServer) -> None:
    """Each test starts with the model's next answer held and no model calls seen."""
    writing.clear()
    released.clear()
    model_server.requests.clear()


@pytest.fixture
async def client(remote_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(remote_system, "chat-remote") as client:
        yield client


@pytest.fixture
async def database(remote_system: Stack) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(remote_system.database_url)
    yield connection
    await connection.close()


@pytest.fixture
async def bus(remote_system: Stack) -> AsyncIterator[nats.NATS]:
    [embedded] = [e for e in remote_system.embedded if isinstance(e, EmbeddedNats)]
    connection = await nats.connect(remote_system.nats_url, token=embedded.token.get_secret_value())
    yield connection
    await connection.close()


@pytest.fixture
async def earlier_turns(database: asyncpg.Connection) -> set[str]:
    """The turns stored before this test (the module's other tests share its system)."""
    return {str(row["id"]) for row in await database.fetch("SELECT id FROM superjournal")}


async def new_turns(database: asyncpg.Connection, earlier: set[str]) -> list[str]:
    """Every turn stored since the test began, whoever stored it."""
    rows = await database.fetch("SELECT id FROM superjournal")
    return [str(row["id"]) for row in rows if str(row["id"]) not in earlier]


Watch = tuple[Subscription, Subscription]


@pytest.fixture
async def watch(client: httpx.AsyncClient, bus: nats.NATS) -> Watch:
    """The user's pricing memo ready; the bus's answer streams and stop requests watched."""
    await ready_file(client, "pricing.md", PRICING_MEMO)
    return await bus.subscribe("chat.stream.>"), await bus.subscribe("chat.stop.>")


async def stopped_answer(watch: Watch) -> tuple[str, dict[str, object]]:
    """The stopped request's id, and its answer's first event that is not a token (the
    answer's end, however it ended)."""
    streams, stops = watch
    stop = await stops.next_msg(timeout=30)
    request_id = stop.subject.removeprefix("chat.stop.")
    while True:
        message = await streams.next_msg(timeout=30)
        event = json.loads(message.data)
        if message.subject == f"chat.stream.{request_id}" and event["type"] != "token":
            return request_id, event


def calls_of(server: FakeModelServer, prompt: str) -> int:
    return sum(1 for request in server.chat_requests if prompt_name(request.json) == prompt)


async def test_a_stopped_answer_is_abandoned_and_not_stored(
    client: httpx.AsyncClient,
    model_server: FakeModelServer,
    database: asyncpg.Connection,
    watch: Watch,
    earlier_turns: set[str],
) -> None:
    async with client.stream(
        "POST", "/v1/chat", json={"persona": "vlad", "message": QUESTION}
    ) as response:
        assert response.status_code == 200
        assert await asyncio.to_thread(writing.wait, 60)  # the model is writing the answer
    # the client left: the gateway says so, and the chat service abandons the answer
    request_id, event = await stopped_answer(watch)
    assert event == {"type": "stopped", "text": "", "done": None}
    # `stopped` is sent after the answer's task has ended: nothing can be stored later
    turn_id = uuid.uuid5(TURN_NAMESPACE, request_id)
    assert await new_turns(database, earlier_turns) == []
    assert calls_of(model_server, "chat_1a") == 1 and calls_of(model_server, "chat_1b") == 0
    checks = await database.fetchval(
        "SELECT count(*) FROM model_calls WHERE turn_id = $1 AND role = 'check'", turn_id
    )
    assert checks == 0

    released.set()
    _, done = await chat(client, persona="vlad", message=QUESTION)
    assert await new_turns(database, earlier_turns) == [done["turn_id"]]


async def test_hanging_up_on_a_whole_answer_stops_it(
    client: httpx.AsyncClient,
    remote_system: Stack,
    database: asyncpg.Connection,
    watch: Watch,
    earlier_turns: set[str],
) -> None:
    question = {"role": "user", "content": QUESTION}
    body = {"model": "artisan-vlad", "messages": [question]}
    asking = asyncio.create_task(client.post("/v1/chat/completions", json=body, timeout=60))
    assert await asyncio.to_thread(writing.wait, 60)  # the model is writing the answer
    asking.cancel()  # the caller hangs up: httpx closes the connection
    _, event = await stopped_answer(watch)
    assert event["type"] == "stopped"
    assert await new_turns(database, earlier_turns) == []

    released.set()
    key = client.headers["Authorization"].removeprefix("Bearer ")
    base_url = f"{remote_system.gateway_url}/v1"
    async with AsyncOpenAI(base_url=base_url, api_key=key, max_retries=0) as caller:
        answer = await caller.chat.completions.create(model="artisan-vlad", messages=[question])
    assert await new_turns(database, earlier_turns) == [answer.model_extra["artisan"]["turn_id"]]


async def test_streamed_remote_answer_is_checked_against_its_sources(
    client: httpx.AsyncClient,
    model_server: FakeModelServer,
    remote_system: Stack,
    embellishing: None,
) -> None:
    await ready_file(client, "pricing.md", PRICING_MEMO)
    question = "Why did we move from per-seat pricing to usage tiers?"
    tokens, done = await chat(client, persona="vlad", message=question)

    streamed = "".join(tokens)
    assert len(tokens) > 5 and "Lisbon" in streamed  # the draft streamed as the model wrote it
    assert "predictable bills" in done["answer"] and "Lisbon" not in done["answer"]
    assert done["removed"] == ["The board also approved a new office in Lisbon."]
    assert done["citations"] and done["usage"]["model"] == "gpt-4o-mini"
    await assert_citations_resolve(client, done["citations"])

    answer_calls = [r for r in model_server.chat_requests if prompt_name(r.json) == "chat_1a"]
    assert answer_calls and all(r.json["stream"] is True for r in answer_calls)
    assert done["usage"]["prompt_tokens"] > 100

    conn = await asyncpg.connect(remote_system.database_url)
    try:
        calls = await conn.fetch(
            "SELECT role, provider, outcome FROM model_calls WHERE turn_id = $1::uuid",
            done["turn_id"],
        )
    finally:
        await conn.close()
    roles = {(c["role"], c["provider"], c["outcome"]) for c in calls}
    assert {("answer", "openai-compatible", "ok"), ("check", "openai-compatible", "ok")} <= roles


async def test_an_answer_whose_chat_service_dies_ends_at_once_with_an_error(
    client: httpx.AsyncClient, remote_system: Stack
) -> None:
    """The chat service says it is alive while it answers; killed mid-answer it falls silent,
    and the asker hears so within ANSWER_SILENCE_SECONDS instead of at the 180 s time limit
    (a client waited out that limit in the fault suite, where the chat service is killed)."""
    [service] = [p for p in remote_system.supervisor.processes if p.name == "chat"]
    body = {"persona": "vlad", "message": QUESTION}
    async with client.stream("POST", "/v1/chat", json=body, timeout=60) as response:
        assert response.status_code == 200
        assert await asyncio.to_thread(writing.wait, 60)  # the model is writing the answer
        service.process.kill()
        killed = time.monotonic()
        events = [line async for line in response.aiter_lines() if line.startswith("data:")]
    waited = time.monotonic() - killed
    assert ANSWER_SILENCE_SECONDS - ALIVE_SECONDS <= waited < ANSWER_SILENCE_SECONDS + 5
    assert json.loads(events[-1][5:]) == {"detail": SERVICE_GONE}, events
    released.set()
    await asyncio.to_thread(heal_until_all_running, remote_system)
    assert await _answered_once_back(client)  # asked again: answered


async def _answered_once_back(client: httpx.AsyncClient, timeout: float = 60) -> str:
    """The turn id of the answer to the question asked again, once the restarted service
    takes questions (503 until it has subscribed)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, done = await chat(client, persona="vlad", message=QUESTION)
            return done["turn_id"]
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)
