"""Chat through remote models: the real openai client streams call 1A from a local wire-format
server, and call 1B removes the sentence the model made up."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import (
    REALISTIC_ANSWERS,
    prompt_name,
    realistic_responder,
    scripted_responder,
)
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, own_stack
from tests.integration.test_chat import PRICING_MEMO, assert_citations_resolve, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
INVENTED = "The board also approved a new office in Lisbon. [Ref: 1]"


def embellished_answer(values: dict[str, str]) -> str:
    """A model that answers well, then adds a claim no source makes, with a citation."""
    return f"{REALISTIC_ANSWERS['chat_1a'](values)} {INVENTED}"


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    responder = scripted_responder({"chat_1a": embellished_answer}, realistic_responder)
    with FakeModelServer(responder) as server:
        yield server


@pytest.fixture(scope="module")
def remote_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, model_server: FakeModelServer
) -> Iterator[Stack]:
    env = {
        "ARTISAN_LLM_BASE_URL": model_server.base_url,
        "ARTISAN_LLM_API_KEY": "test-key",
        "ARTISAN_LLM_MODEL": "gpt-4o-mini",
        "ARTISAN_LLM_MAX_RETRIES": "1",
        "ARTISAN_VOYAGE_API_KEY": "test-key",
        "ARTISAN_EMBED_PROVIDER": "voyage",  # the suite pins "local" (tests/conftest.py)
        "ARTISAN_VOYAGE_BASE_URL": model_server.base_url,
    }
    with own_stack(tmp_path_factory.mktemp("chat-remote"), env, pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture
async def client(remote_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(remote_system, "chat-remote") as client:
        yield client


async def test_streamed_remote_answer_is_checked_against_its_sources(
    client: httpx.AsyncClient, model_server: FakeModelServer, remote_system: Stack
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
