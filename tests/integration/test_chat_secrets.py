"""Secrets typed into the chat through the real system: never in the memory facts, the export,
or the stored answer (issue 4: "never appear in the journal, the memory facts or the export")."""

import asyncpg
import httpx
import pytest

from tests.helpers import import_turns, wait_journaled
from tests.integration.test_chat import chat, ready_file, wait_for_journal

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


async def test_an_answer_quoting_a_secret_from_a_file_is_stored_redacted(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    key = "sk-proj-Q8vR2mT6yW1zX4cB7nL0pK3j"
    notes = f"# Staging\n\nThe staging deploy uses the API key {key} for the payment sandbox.\n"
    await ready_file(api_client, "staging.md", notes)
    _, done = await chat(api_client, persona="kirby", message="Which API key does staging use?")
    assert not done["refused"], done
    row = await wait_for_journal(db, done["turn_id"])
    assert key not in row["ai_response"] and "[redacted API key]" in row["ai_response"]
    assert "payment sandbox" in row["ai_response"]
    listed = (await api_client.get(f"/v1/turns/{done['turn_id']}")).json()
    assert key not in listed["ai_response"]


async def test_a_secret_in_a_search_or_preview_question_is_redacted_first(
    api_client: httpx.AsyncClient,
) -> None:
    """The question is embedded (maybe by a remote API): its secret is gone before that, so
    search cannot find a file by it, and the preview shows the question redacted."""
    await ready_file(api_client, "vault.md", "# Vault\n\nThe vault word hunter2xyz opens it.\n")
    found = await api_client.get("/v1/search", params={"q": "vault word hunter2xyz"})
    assert [hit["filename"] for hit in found.json()["items"]] == ["vault.md"]  # it is findable
    hidden = await api_client.get("/v1/search", params={"q": "my password is hunter2xyz"})
    assert hidden.status_code == 200 and hidden.json()["items"] == []
    params = {"persona": "gunnar", "q": "is my password: hunter2xyz safe?"}
    preview = (await api_client.get("/v1/context/preview", params=params)).json()
    assert preview["query"] == "is my password: [redacted password]?"  # to the clause end
