"""POST /v1/chat through the real system: streamed, cited, verifiable, stored, and never a guess."""

import asyncio
import json
import time
from typing import Any

import asyncpg
import httpx
import pytest
from httpx_sse import EventSource

from shared.domain import REFUSAL
from shared.personas import get_persona
from tests.conftest import ClientFactory
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

PRICING_MEMO = """# Pricing decision

We decided to move from per-seat pricing to usage tiers, because our largest customers
kept asking for predictable bills. The risk is churn among small teams; we will watch it.

## Next steps

1. Ship the tier calculator by March.
2. Interview ten churned customers and report back.
"""
HIRING_PLAN = """# Hiring plan

We will hire two backend engineers before the third quarter. The recruiting budget for
the year is sixty thousand euros, approved by the board in January.

## Interviews

Every candidate meets two engineers and the product lead. Offers go out within a week.
"""
OTHER_PRICING = """# Pricing notes from the sales offsite

The sales team asked for a discount ladder on usage tiers for annual contracts.
Annual contracts on usage tiers get a ten percent discount from next year.
"""


async def chat(client: httpx.AsyncClient, **body: Any) -> tuple[list[str], dict[str, Any]]:
    """The token texts and the `done` payload of one answer (fails on an `error` event)."""
    tokens = []
    async with client.stream("POST", "/v1/chat", json=body, timeout=60) as response:
        assert response.status_code == 200, await response.aread()
        async for event in EventSource(response).aiter_sse():
            data = json.loads(event.data)
            if event.event == "token":
                tokens.append(data["text"])
            elif event.event == "error":
                raise AssertionError(f"error event: {data}")
            elif event.event == "done":
                return tokens, data
    raise AssertionError("the stream ended without a done event")


async def ready_file(client: httpx.AsyncClient, name: str, text: str) -> dict[str, Any]:
    record = await upload(client, name, text)
    return await wait_for_status(client, record["id"], "ready", timeout=60)


async def assert_citations_resolve(client: httpx.AsyncClient, citations: list[dict]) -> None:
    """Every citation names a real chunk of its file and quotes that chunk's text exactly."""
    for citation in citations:
        response = await client.get(f"/v1/files/{citation['file_id']}/chunks")
        chunks = {c["id"]: c for c in response.json()["items"]}
        chunk = chunks[citation["chunk_id"]]
        assert citation["snippet"] and citation["snippet"] in chunk["text"]
        assert (citation["char_start"], citation["char_end"]) == (
            chunk["char_start"],
            chunk["char_end"],
        )
        assert citation["line_start"] <= citation["line_end"]


async def wait_for_journal(db: asyncpg.Pool, turn_id: str, timeout: float = 30) -> asyncpg.Record:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = await db.fetchrow("SELECT * FROM superjournal WHERE id = $1::uuid", turn_id)
        if row is not None and row["journal_status"] != "pending":
            return row
        await asyncio.sleep(0.1)
    raise AssertionError(f"turn {turn_id} not journaled after {timeout} s")


async def test_an_answer_streams_tokens_then_done_with_citations_that_resolve(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    await ready_file(api_client, "pricing.md", PRICING_MEMO)
    await ready_file(api_client, "hiring.md", HIRING_PLAN)
    question = "Why did we move from per-seat pricing to usage tiers?"
    tokens, done = await chat(api_client, persona="vlad", message=question)

    assert len(tokens) > 5
    assert not done["refused"] and done["persona"] == "vlad"
    assert "".join(tokens).strip() == done["answer"] or done["removed"]
    assert "predictable bills" in done["answer"] and "[Ref: " in done["answer"]
    assert done["citations"] and done["citations"][0]["filename"] == "pricing.md"
    for citation in done["citations"]:
        assert f"[Ref: {citation['ref']}]" in done["answer"]
    await assert_citations_resolve(api_client, done["citations"])
    assert any(s["name"] == "files" for s in done["sections"])
    assert done["usage"]["completion_tokens"] > 0

    row = await wait_for_journal(db, done["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]
    assert (row["persona_name"], row["user_message"]) == ("vlad", question)
    assert row["ai_response"] == done["answer"]
    stored = json.loads(row["citations"])
    assert [c["chunk_id"] for c in stored] == [c["chunk_id"] for c in done["citations"]]
    assert {str(i) for i in row["cited_chunk_ids"]} == {c["chunk_id"] for c in stored}


async def test_a_question_no_file_answers_gets_the_refusal(api_client: httpx.AsyncClient) -> None:
    await ready_file(api_client, "pricing.md", PRICING_MEMO)
    _, done = await chat(
        api_client, persona="gunnar", message="What is the airspeed of an unladen swallow?"
    )
    assert (done["answer"], done["refused"], done["citations"]) == (REFUSAL, True, [])


async def test_who_are_you_is_answered_from_the_persona_profile(
    api_client: httpx.AsyncClient,
) -> None:
    tokens, done = await chat(api_client, persona="Samara", message="Who are you?")
    assert done["answer"] == get_persona("samara").profile == "".join(tokens).strip()
    assert done["citations"] == [] and done["persona"] == "samara"


async def test_a_secret_typed_into_the_chat_is_never_stored(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    secret = "sk-proj-Zt7fQ2mL9xW4vB8nK3pR6sY1"
    message = f"My OpenAI api key is {secret}; please remember it. Who are you?"
    _, done = await chat(api_client, persona="stefan", message=message)
    row = await wait_for_journal(db, done["turn_id"])
    journal = await db.fetchrow("SELECT * FROM journal WHERE turn_id = $1", row["id"])
    stored = [row["user_message"], row["ai_response"], *(dict(journal or {}).values())]
    assert "[redacted API key]" in row["user_message"]
    assert not any(secret in str(value) for value in stored)


async def test_attachments_restrict_the_citations_to_the_attached_file(
    api_client: httpx.AsyncClient,
) -> None:
    pricing = await ready_file(api_client, "pricing.md", PRICING_MEMO)
    other = await ready_file(api_client, "offsite.md", OTHER_PRICING)
    question = "What about usage tiers?"
    _, unrestricted = await chat(api_client, persona="kirby", message=question)
    assert pricing["id"] in {c["file_id"] for c in unrestricted["citations"]}, unrestricted

    _, done = await chat(api_client, persona="kirby", message=question, attachments=[other["id"]])
    assert done["citations"], json.dumps(done)
    assert {c["file_id"] for c in done["citations"]} == {other["id"]}
    await assert_citations_resolve(api_client, done["citations"])


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"persona": "nobody", "message": "hi"}, 422, "gunnar"),
        ({"persona": "gunnar", "message": "   "}, 422, "empty"),
        ({"persona": "gunnar", "message": "x" * 20_001}, 413, "limit"),
        ({"persona": "gunnar", "message": "hi", "attachments": ["not-a-uuid"]}, 422, "uuid"),
        ({"persona": "gunnar"}, 422, "message"),
    ],
)
async def test_bad_requests_are_refused_with_a_clear_message(
    api_client: httpx.AsyncClient, body: dict, status: int, words: str
) -> None:
    response = await api_client.post("/v1/chat", json=body)
    assert response.status_code == status
    assert words in response.json()["detail"].lower()


async def test_another_users_file_cannot_be_attached(make_client: ClientFactory) -> None:
    owner, stranger = await make_client(), await make_client()
    record = await upload(owner, "pricing.md", PRICING_MEMO)
    body = {"persona": "gunnar", "message": "pricing?", "attachments": [record["id"]]}
    response = await stranger.post("/v1/chat", json=body)
    assert response.status_code == 404 and "GET /v1/files" in response.json()["detail"]


async def test_personas_are_listed(api_client: httpx.AsyncClient) -> None:
    items = (await api_client.get("/v1/personas")).json()["items"]
    names = {item["name"] for item in items}
    assert {"gunnar", "vlad", "kirby", "stefan", "ananya", "samara"} <= names
    assert all(item["initial"] == item["display_name"][0] for item in items)
