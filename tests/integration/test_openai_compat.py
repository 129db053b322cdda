"""The OpenAI-compatible API through the real system, with the official `openai` client as the
caller: the personas as models, answers (whole and streamed) that cite an uploaded file, the
caller's earlier messages as P1, the turn journaled, and errors as OpenAI's clients raise them."""

import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import nats
import openai
import pytest
from openai import AsyncOpenAI

from shared.contracts import ContextBundle, ContextRequest, Request
from shared.launcher.embedded import EmbeddedNats
from shared.launcher.stack import Stack
from tests.conftest import ClientFactory
from tests.integration.test_chat import (
    PRICING_MEMO,
    assert_citations_resolve,
    ready_file,
    wait_for_journal,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")
QUESTION = "Why did we move from per-seat pricing to usage tiers?"
API_CONVERSATION_TITLE = "From OpenAI-compatible clients"


def openai_client(system: Stack, api_key: str) -> AsyncOpenAI:
    # no retries: a refusal must reach the test as it was sent
    return AsyncOpenAI(base_url=f"{system.gateway_url}/v1", api_key=api_key, max_retries=0)


def key_of(client: httpx.AsyncClient) -> str:
    return client.headers["Authorization"].removeprefix("Bearer ")


@pytest.fixture
async def user(make_client: ClientFactory) -> httpx.AsyncClient:
    return await make_client()


@pytest.fixture
async def caller(system: Stack, user: httpx.AsyncClient) -> AsyncIterator[AsyncOpenAI]:
    async with openai_client(system, key_of(user)) as client:
        yield client


def sections_of(row: asyncpg.Record) -> dict[str, int]:
    """The stored turn's context sections: name → tokens."""
    value = row["context_sections"]
    return {
        s["name"]: s["tokens"] for s in (json.loads(value) if isinstance(value, str) else value)
    }


async def test_the_models_are_the_personas(caller: AsyncOpenAI, user: httpx.AsyncClient) -> None:
    personas = (await user.get("/v1/personas")).json()["items"]
    models = [model async for model in caller.models.list()]
    assert sorted(m.id for m in models) == sorted(f"artisan-{p['name']}" for p in personas)
    assert {m.owned_by for m in models} == {"artisan"}
    gunnar = await caller.models.retrieve("artisan-gunnar")
    assert gunnar.model_extra["name"] == next(
        p["display_name"] for p in personas if p["name"] == "gunnar"
    )


async def test_an_answer_cites_the_uploaded_file_and_is_journaled(
    caller: AsyncOpenAI, user: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    await ready_file(user, "pricing.md", PRICING_MEMO)
    completion = await caller.chat.completions.create(
        model="artisan-vlad", messages=[{"role": "user", "content": QUESTION}], temperature=0.2
    )
    answer = completion.choices[0].message.content or ""
    assert completion.model == "artisan-vlad" and completion.choices[0].finish_reason == "stop"
    assert "predictable bills" in answer and "[Ref: " in answer
    citations: list[dict[str, Any]] = completion.model_extra["citations"]
    assert citations and {c["filename"] for c in citations} == {"pricing.md"}
    for citation in citations:
        assert f"[Ref: {citation['ref']}]" in answer
    await assert_citations_resolve(user, citations)
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens

    artisan = completion.model_extra["artisan"]
    row = await wait_for_journal(db, artisan["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]
    assert (row["persona_name"], row["user_message"], row["ai_response"]) == (
        "vlad",
        QUESTION,
        answer,
    )
    assert str(row["conversation_id"]) == artisan["conversation_id"]
    journal = await db.fetchval("SELECT count(*) FROM journal WHERE turn_id = $1", row["id"])
    assert journal == 1
    conversation = (await user.get(f"/v1/conversations/{artisan['conversation_id']}")).json()
    assert (conversation["title"], conversation["persona"]) == (API_CONVERSATION_TITLE, "vlad")


async def test_a_streamed_answer_joins_to_a_cited_answer_in_the_same_conversation(
    caller: AsyncOpenAI, user: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    await ready_file(user, "pricing.md", PRICING_MEMO)
    whole = await caller.chat.completions.create(
        model="artisan-vlad", messages=[{"role": "user", "content": QUESTION}]
    )
    stream = await caller.chat.completions.create(
        model="artisan-vlad",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(chunks) > 5 and chunks[0].choices[0].delta.role == "assistant"
    assert len({c.id for c in chunks}) == 1 and {c.model for c in chunks} == {"artisan-vlad"}
    assert "predictable bills" in text and "[Ref: " in text
    [last] = [c for c in chunks if c.choices and c.choices[0].finish_reason == "stop"]
    citations = last.model_extra["citations"]
    assert {c["filename"] for c in citations} == {"pricing.md"}
    assert all(f"[Ref: {c['ref']}]" in text for c in citations)
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0

    row = await wait_for_journal(db, last.model_extra["artisan"]["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]
    # one conversation per user and persona holds what the API was asked
    assert (
        last.model_extra["artisan"]["conversation_id"]
        == whole.model_extra["artisan"]["conversation_id"]
    )


async def test_earlier_messages_are_p1_and_system_messages_instructions(
    caller: AsyncOpenAI, db: asyncpg.Pool
) -> None:
    earlier = [
        {"role": "system", "content": "Answer as briefly as you can."},
        {"role": "user", "content": "Our project codename is Bluefin, remember it."},
        {"role": "assistant", "content": "Noted: the codename is Bluefin."},
    ]
    question = {"role": "user", "content": "What should we name the launch?"}
    told = await caller.chat.completions.create(
        model="artisan-gunnar", messages=[*earlier, question]
    )
    row = await wait_for_journal(db, told.model_extra["artisan"]["turn_id"])
    sections = sections_of(row)
    assert sections["recent_turns"] > 0 and sections["instructions"] > 0

    # asked again without them, P1 is empty: the API's stored conversation is not the caller's
    alone = await caller.chat.completions.create(model="artisan-gunnar", messages=[question])
    assert (
        alone.model_extra["artisan"]["conversation_id"]
        == told.model_extra["artisan"]["conversation_id"]
    )
    row = await wait_for_journal(db, alone.model_extra["artisan"]["turn_id"])
    assert sections_of(row)["recent_turns"] == 0 and sections_of(row)["instructions"] == 0


async def build_context(system: Stack, request: ContextRequest) -> dict[str, Any]:
    """The context service's sections for `request`, asked over NATS as the chat service asks."""
    [embedded] = [e for e in system.embedded if isinstance(e, EmbeddedNats)]
    bus = await nats.connect(system.nats_url, token=embedded.token.get_secret_value())
    try:
        reply = await bus.request(
            Request.CONTEXT_BUILD.value, request.model_dump_json().encode(), timeout=15
        )
    finally:
        await bus.close()
    return {s.name: s for s in ContextBundle.model_validate_json(reply.data).sections}


async def test_the_context_service_reads_the_callers_turns_as_p1(
    system: Stack, user: httpx.AsyncClient
) -> None:
    request = ContextRequest(
        user_id=user.user_id,  # type: ignore[attr-defined]
        persona="gunnar",
        query="What was the codename?",
        recent=[
            ("system", "Answer in French."),
            ("user", "Our project codename is Bluefin."),
            ("assistant", "Noted [Ref: 3]."),
        ],
    )
    sections = await build_context(system, request)
    [turn] = sections["recent_turns"].items
    assert turn.text == (
        "[earlier in this chat · gunnar]\nUser: Our project codename is Bluefin.\ngunnar: Noted."
    )
    [instruction] = sections["instructions"].items
    assert instruction.text == "Instruction for this answer: Answer in French."


async def test_a_callers_earlier_turn_enters_once_though_it_is_journaled(
    system: Stack, caller: AsyncOpenAI, user: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """The turn the caller sends back was stored (and journaled) when it was answered: P1 holds
    it under its stored id, so P4 does not hold its Artisan Cut as well."""
    said = {"role": "user", "content": "What should we name the launch?"}
    first = await caller.chat.completions.create(model="artisan-gunnar", messages=[said])
    turn_id = first.model_extra["artisan"]["turn_id"]
    row = await wait_for_journal(db, turn_id)
    assert row["journal_status"] == "journaled", row["journal_error"]
    request = ContextRequest(
        user_id=user.user_id,  # type: ignore[attr-defined]
        persona="gunnar",
        query="And the one after it?",
        conversation_id=first.model_extra["artisan"]["conversation_id"],
        recent=[("user", said["content"]), ("assistant", first.choices[0].message.content)],
    )
    sections = await build_context(system, request)
    assert [str(item.id) for item in sections["recent_turns"].items] == [turn_id]
    assert turn_id not in {str(item.id) for item in sections["journal"].items}

    # without the match the same turn would enter twice: P4 holds its cut for any other question
    alone = await build_context(system, request.model_copy(update={"recent": []}))
    assert turn_id in {str(item.id) for item in alone["journal"].items}


async def test_an_invalid_key_is_an_authentication_error(system: Stack) -> None:
    async with openai_client(system, "not-a-key") as stranger:
        with pytest.raises(openai.AuthenticationError) as raised:
            await stranger.models.list()
    assert raised.value.status_code == 401
    assert raised.value.code == "invalid_api_key"
    assert "artisan users create" in raised.value.message


async def test_an_unknown_model_says_which_models_exist(caller: AsyncOpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        await caller.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    assert raised.value.code == "model_not_found"
    assert "artisan-gunnar" in raised.value.message and "GET /v1/models" in raised.value.message


@pytest.mark.parametrize(
    ("messages", "status", "words"),
    [
        ([{"role": "user", "content": "x" * 20_001}], 413, "limit"),
        ([{"role": "assistant", "content": "Hello"}], 400, "user"),
        ([{"role": "user", "content": "   "}], 422, "empty"),
        ([{"role": "narrator", "content": "hi"}], 422, "role"),
    ],
)
async def test_bad_requests_are_refused_in_openais_shape(
    caller: AsyncOpenAI, messages: list[dict[str, str]], status: int, words: str
) -> None:
    with pytest.raises(openai.APIStatusError) as raised:
        await caller.chat.completions.create(model="artisan-gunnar", messages=messages)
    assert raised.value.status_code == status
    assert words in raised.value.message.lower()
    assert raised.value.type == "invalid_request_error"
