"""Telling a persona something through the real system: an instruction or a durable fact is
acknowledged (what will be remembered, for whom), then remembered as acknowledged; a request
to keep a secret is neither."""

import asyncpg
import httpx
import pytest

from shared.domain import REFUSAL
from tests.integration.test_chat import PRICING_MEMO, chat, ready_file, wait_for_journal

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_an_instruction_and_a_fact_are_acknowledged_and_remembered(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    await ready_file(api_client, "pricing.md", PRICING_MEMO)
    message = "From now on, don't use sports analogies."
    tokens, done = await chat(api_client, persona="gunnar", message=message)
    expected = "Noted — from now on, no advisor will use sports analogies."
    assert (done["answer"], done["refused"], done["citations"]) == (expected, False, [])
    assert "".join(tokens).strip() == expected
    row = await wait_for_journal(db, done["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]
    rules = (await api_client.get("/v1/instructions")).json()["items"]
    assert [(r["instruction_scope"], r["turn_id"]) for r in rules] == [("global", done["turn_id"])]

    _, done = await chat(api_client, persona="gunnar", message="I am the head of finance at Acme.")
    assert not done["refused"] and done["citations"] == [], done
    assert "you are the head of finance at Acme" in done["answer"]
    assert "every advisor will know that" in done["answer"]
    await wait_for_journal(db, done["turn_id"])
    facts = (await api_client.get("/v1/memory")).json()["items"]
    assert sorted(f["fact"] for f in facts) == [
        "The user is the head of finance at Acme.",
        "The user's company is called Acme.",
    ]

    # a question still goes through retrieval, and gets the refusal when nothing answers it
    _, done = await chat(api_client, persona="gunnar", message="What is our staging password?")
    assert (done["answer"], done["refused"]) == (REFUSAL, True)


async def test_a_secret_to_keep_handy_is_not_an_instruction(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    message = "Our staging password is Tr0ub4dor-staging-77, keep it handy."
    _, done = await chat(api_client, persona="kirby", message=message)
    assert done["refused"] and done["citations"] == [], done
    row = await wait_for_journal(db, done["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]
    entry = await db.fetchrow("SELECT * FROM journal WHERE turn_id = $1", row["id"])
    assert not entry["is_instruction"] and entry["instruction_scope"] is None
    assert (await api_client.get("/v1/instructions")).json()["items"] == []
