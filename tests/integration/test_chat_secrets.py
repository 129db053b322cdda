"""Secrets typed into the chat through the real system: never in the memory facts, the export,
or the stored answer (issue 4: "never appear in the journal, the memory facts or the export")."""

import asyncpg
import httpx
import pytest

from tests.helpers import import_turns, wait_journaled
from tests.integration.test_chat import chat, wait_for_journal

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_secret_typed_into_the_chat_is_in_no_fact_and_no_export(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    secret = "hunter2xyz"
    message = f"I am the admin and my password is {secret}. I run a bakery in Oslo."
    _, done = await chat(api_client, persona="stefan", message=message)
    row = await wait_for_journal(db, done["turn_id"])
    assert row["journal_status"] == "journaled", row["journal_error"]

    imported = {
        "persona": "vlad",
        "user_message": "I am the owner and my API key is sk-proj-Zt7fQ2mL9xW4vB8nK3pR6sY1.",
        "ai_response": "Noted.",
    }
    records = await import_turns(api_client, [imported])
    await wait_journaled(api_client, [r["id"] for r in records])

    facts = (await api_client.get("/v1/memory")).json()["items"]
    assert [f["fact"] for f in facts] == ["The user runs a bakery in Oslo."]
    export = (await api_client.get("/v1/memory/export")).json()["files"]
    for text in export.values():
        assert secret not in text and "sk-proj" not in text and "redacted" not in text
    assert "bakery in Oslo" in export["USER_MEMORY.md"]
