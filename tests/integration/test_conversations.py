"""Conversations through the real system (issue 13, item 2): started, named, renamed, searched,
deleted and exported; imported per persona; another user's conversation is a 404. What a
question sees of them: test_conversation_memory.py."""

import uuid
from typing import Any

import asyncpg
import httpx
import pytest

from tests.conftest import ClientFactory
from tests.helpers import import_turns, upload, wait_for_status, wait_journaled
from tests.integration.test_chat import PRICING_MEMO, chat

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def start(client: httpx.AsyncClient, persona: str, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/conversations", json={"persona": persona, **body})
    assert response.status_code == 201, response.text
    return response.json()


async def listed(client: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    response = await client.get("/v1/conversations", params=params)
    assert response.status_code == 200, response.text
    return response.json()["items"]


async def turns_of(client: httpx.AsyncClient, conversation_id: str) -> list[dict[str, Any]]:
    response = await client.get(
        "/v1/turns", params={"conversation_id": conversation_id, "limit": 1000}
    )
    assert response.status_code == 200, response.text
    return response.json()["items"]


def said(persona: str, message: str, answer: str = "Noted.", **extra: Any) -> dict[str, Any]:
    return {"persona": persona, "user_message": message, "ai_response": answer, **extra}


async def test_start_name_rename_search_and_export(api_client: httpx.AsyncClient) -> None:
    empty = await start(api_client, "gunnar")
    assert (empty["persona"], empty["title"], empty["turn_count"]) == (
        "gunnar",
        "New conversation",
        0,
    )
    named = await start(api_client, "vlad", title="  Hiring   plan\n")
    assert named["title"] == "Hiring plan"  # on one line

    # the first question names an untitled conversation
    question = "How should we price the Pro plan for teams of more than fifty people next year?"
    body = {"turns": [said("gunnar", question, "Usage tiers.")], "conversation_id": empty["id"]}
    response = await api_client.post("/v1/turns/import", json=body)
    assert response.status_code == 202, response.text
    [turn] = response.json()["items"]
    assert turn["conversation_id"] == empty["id"]
    got = (await api_client.get(f"/v1/conversations/{empty['id']}")).json()
    assert got["title"] == "How should we price the Pro plan for teams of more than…"
    assert got["turn_count"] == 1 and got["updated_at"] >= empty["updated_at"]

    renamed = await api_client.patch(
        f"/v1/conversations/{empty['id']}", json={"title": "Pro plan pricing"}
    )
    assert renamed.status_code == 200 and renamed.json()["title"] == "Pro plan pricing"
    for bad in ({}, {"title": "   "}, {"persona": "nobody"}, {"title": "x" * 201}):
        refused = await api_client.patch(f"/v1/conversations/{empty['id']}", json=bad)
        assert refused.status_code == 422, (bad, refused.text)
    too_long = {"persona": "gunnar", "title": "x" * 201}
    refused = await api_client.post("/v1/conversations", json=too_long)
    assert refused.status_code == 422 and "title" in refused.json()["detail"]

    await wait_journaled(api_client, [turn["id"]])
    titles = lambda items: [c["title"] for c in items]  # noqa: E731
    # latest activity first: the import made "Pro plan pricing" the latest
    assert titles(await listed(api_client)) == ["Pro plan pricing", "Hiring plan"]
    assert titles(await listed(api_client, q="pro PLAN")) == ["Pro plan pricing"]  # its title
    assert titles(await listed(api_client, q="priced teams")) == ["Pro plan pricing"]  # its turns
    assert titles(await listed(api_client, q="priced penguins")) == []  # every word, not any
    assert titles(await listed(api_client, persona="vlad")) == ["Hiring plan"]
    assert (await api_client.get("/v1/conversations", params={"persona": "x"})).status_code == 422
    page = (await api_client.get("/v1/conversations", params={"limit": 1})).json()
    after = await listed(api_client, limit=1, before=page["next"])
    assert titles(page["items"] + after) == ["Pro plan pricing", "Hiring plan"]

    export = await api_client.get(f"/v1/conversations/{empty['id']}/export")
    assert export.status_code == 200
    assert export.headers["content-type"].startswith("text/markdown")
    stamp = got["created_at"][:10]
    assert export.headers["content-disposition"] == (
        f'attachment; filename="pro-plan-pricing-{stamp}.md"'
    )
    text = export.text
    assert text.startswith("# Pro plan pricing\n")
    assert "- Persona: Gunnar" in text and "- Turns: 1" in text
    assert f"**You:** {question}" in text and "**Gunnar:** Usage tiers." in text


async def test_the_export_lists_an_answers_sources_numbered_from_one(
    api_client: httpx.AsyncClient,
) -> None:
    memo = await upload(api_client, "pricing.md", PRICING_MEMO)
    await wait_for_status(api_client, memo["id"], "ready")
    _, done = await chat(api_client, persona="vlad", message="Why did we move to usage tiers?")
    assert done["citations"], done
    export = (await api_client.get(f"/v1/conversations/{done['conversation_id']}/export")).text
    assert "**Vlad:**" in export and "[1]" in export and "[Ref:" not in export
    assert "Sources:\n\n1. pricing.md — Pricing decision, lines" in export
    assert "predictable bills" in export


async def import_turns_into(
    client: httpx.AsyncClient, conversation_id: str, turns: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    body = {"turns": turns, "conversation_id": conversation_id}
    response = await client.post("/v1/turns/import", json=body)
    assert response.status_code == 202, response.text
    return response.json()["items"]


async def test_an_import_starts_one_conversation_per_persona_once(
    api_client: httpx.AsyncClient,
) -> None:
    history = [
        said("vlad", "Which markets first?", created_at="2026-01-01T10:00:00Z"),
        said("kirby", "Which CRM?", created_at="2026-01-01T11:00:00Z"),
        said("vlad", "And after that?", created_at="2026-01-01T12:00:00Z"),
    ]
    records = await import_turns(api_client, history)
    by_persona = {c["persona"]: c for c in await listed(api_client)}
    assert sorted(by_persona) == ["kirby", "vlad"]
    assert by_persona["vlad"]["title"] == "Which markets first?"
    assert by_persona["vlad"]["turn_count"] == 2
    assert records[0]["conversation_id"] == records[2]["conversation_id"]
    again = await import_turns(api_client, history)  # the same history adds nothing
    assert [r["id"] for r in again] == [r["id"] for r in records]
    assert len(await listed(api_client)) == 2
    into = await api_client.post(
        "/v1/turns/import",
        json={"turns": [said("gunnar", "Hi")], "conversation_id": by_persona["vlad"]["id"]},
    )
    assert into.status_code == 409


async def test_another_users_conversation_is_not_found(make_client: ClientFactory) -> None:
    owner, other = await make_client(), await make_client()
    mine = await start(owner, "gunnar", title="Secret plans")
    await import_turns_into(owner, mine["id"], [said("gunnar", "Our secret plan?")])
    path = f"/v1/conversations/{mine['id']}"
    into_mine = {"turns": [said("gunnar", "x")], "conversation_id": mine["id"]}
    for method, url, body in (
        ("GET", path, None),
        ("PATCH", path, {"title": "Mine now"}),
        ("DELETE", path, None),
        ("GET", f"{path}/export", None),
        ("GET", f"/v1/turns?conversation_id={mine['id']}", None),
        ("POST", "/v1/turns/import", into_mine),
    ):
        response = await other.request(method, url, json=body)
        assert response.status_code == 404, (method, url, response.text)
        assert "Secret" not in response.text
    refused = await other.post(
        "/v1/chat", json={"persona": "gunnar", "message": "Hi", "conversation_id": mine["id"]}
    )
    assert refused.status_code == 404
    assert await listed(other) == [] and await listed(other, q="secret") == []
    assert (await owner.get(path)).json()["title"] == "Secret plans"


async def test_deleting_a_conversation_deletes_its_turns_and_what_was_learned_from_them(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    gone = await start(api_client, "gunnar")
    kept = await start(api_client, "gunnar")
    deleted = await import_turns_into(
        api_client, gone["id"], [said("gunnar", "My name is Maya Chen.", "Nice to meet you.")]
    )
    stays = await import_turns_into(api_client, kept["id"], [said("gunnar", "Which CRM?")])
    await wait_journaled(api_client, [t["id"] for t in deleted + stays])
    assert [f["turn_id"] for f in (await api_client.get("/v1/memory")).json()["items"]] == [
        deleted[0]["id"]
    ]
    assert (await api_client.delete(f"/v1/conversations/{gone['id']}")).status_code == 204
    assert (await api_client.get(f"/v1/conversations/{gone['id']}")).status_code == 404
    assert (await api_client.delete(f"/v1/conversations/{gone['id']}")).status_code == 404
    assert (await api_client.get(f"/v1/turns/{deleted[0]['id']}")).status_code == 404
    assert (await api_client.get("/v1/memory")).json()["items"] == []
    turn_ids = [uuid.UUID(t["id"]) for t in deleted]
    for table in ("superjournal", "journal", "memory_facts", "journal_terms"):
        column = "id" if table == "superjournal" else "turn_id"
        left = await db.fetchval(
            f"SELECT count(*) FROM {table} WHERE {column} = ANY($1::uuid[])", turn_ids
        )
        assert left == 0, table
    assert [t["id"] for t in await turns_of(api_client, kept["id"])] == [stays[0]["id"]]
