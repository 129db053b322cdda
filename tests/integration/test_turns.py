"""/v1/turns, /v1/journal, /v1/instructions through the gateway, the bus, the compressor and the
embedder: import, journal, star, delete, pagination, isolation and bad input."""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx

from tests.conftest import ClientFactory
from tests.helpers import import_turns, wait_journaled

PERSONAS = ["gunnar", "vlad", "kirby", "stefan", "ananya", "samara"]
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
GUNNAR_INSTRUCTION = "Gunnar, don't use sports analogies."
GLOBAL_INSTRUCTION = "All of you, never use emojis."


def history(count: int, *, start: datetime = START) -> list[dict[str, Any]]:
    """`count` business turns a minute apart; turn 20 is the gunnar instruction, 40 the global."""
    topics = ["pricing", "hiring", "churn", "onboarding", "fundraising", "suppliers"]
    turns = []
    for index in range(count):
        topic = topics[index % len(topics)]
        message = (
            f"Turn {index}: what should we do about {topic} this quarter? "
            f"Our {topic} numbers moved by {index % 17 + 3}% since the last review."
        )
        if index == 20:
            message = GUNNAR_INSTRUCTION
        if index == 40:
            message = GLOBAL_INSTRUCTION
        turns.append(
            {
                "persona": "gunnar" if index in (20, 40) else PERSONAS[index % len(PERSONAS)],
                "user_message": message,
                "ai_response": (
                    f"On {topic}: I recommend reviewing the {topic} figures weekly and "
                    f"deciding by the end of the month; the main risk is waiting too long."
                ),
                "created_at": (start + timedelta(minutes=index)).isoformat(),
            }
        )
    return turns


async def test_150_imported_turns_are_all_journaled_with_an_embedding_and_scoped_instructions(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    records = await import_turns(api_client, history(150))
    assert len(records) == 150
    assert all(r["journal_status"] == "pending" and r["imported"] for r in records)
    await wait_journaled(api_client, [r["id"] for r in records], timeout=120)

    embedded = await db.fetchval(
        "SELECT count(*) FROM journal WHERE user_id = $1 AND embedding IS NOT NULL",
        api_client.user_id,  # type: ignore[attr-defined]
    )
    assert embedded == 150
    first = await api_client.get("/v1/journal", params={"limit": 100})
    page = first.json()
    assert len(page["items"]) == 100 and page["next"]
    second = (await api_client.get("/v1/journal", params={"before": page["next"]})).json()
    assert len(second["items"]) == 20
    entries = page["items"] + second["items"]
    # the journal keeps the turns' own times, newest first
    assert entries[0]["created_at"] > entries[-1]["created_at"]
    assert all(e["embedded"] for e in entries)

    instructions = (await api_client.get("/v1/instructions")).json()["items"]
    assert sorted(e["instruction_scope"] for e in instructions) == ["global", "gunnar"]
    assert {e["persona"] for e in instructions} == {"gunnar"}
    assert len(instructions) == 2
    gunnar = (await api_client.get("/v1/instructions", params={"persona": "Gunnar"})).json()
    vlad = (await api_client.get("/v1/instructions", params={"persona": "vlad"})).json()
    assert {e["instruction_scope"] for e in gunnar["items"]} == {"gunnar", "global"}
    assert [e["instruction_scope"] for e in vlad["items"]] == ["global"]


async def test_turns_are_listed_newest_first_in_pages(api_client: httpx.AsyncClient) -> None:
    records = await import_turns(api_client, history(25))
    seen: list[str] = []
    before = None
    while True:
        params = {"limit": 10, **({"before": before} if before else {})}
        page = (await api_client.get("/v1/turns", params=params)).json()
        seen.extend(t["id"] for t in page["items"])
        before = page["next"]
        if before is None:
            break
    assert len(seen) == len(set(seen)) == 25
    by_id = {r["id"]: r for r in records}
    times = [by_id[i]["created_at"] for i in seen]
    assert times == sorted(times, reverse=True)
    turn = by_id[seen[0]]
    assert set(turn) >= {
        "id",
        "persona",
        "user_message",
        "ai_response",
        "citations",
        "is_starred",
        "attachments",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "journal_status",
        "created_at",
    }


async def test_reimporting_the_same_history_duplicates_nothing(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    turns = history(12)
    first = await import_turns(api_client, turns)
    await wait_journaled(api_client, [r["id"] for r in first])
    again = await import_turns(api_client, turns)
    assert [r["id"] for r in again] == [r["id"] for r in first]
    user_id = api_client.user_id  # type: ignore[attr-defined]
    assert await db.fetchval("SELECT count(*) FROM superjournal WHERE user_id = $1", user_id) == 12
    assert await db.fetchval("SELECT count(*) FROM journal WHERE user_id = $1", user_id) == 12


async def test_star_unstar_and_delete_a_turn_with_its_journal_row_and_facts(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    turns = history(3)
    turns[1]["user_message"] = "I am the head of sales at Acme. Our bottleneck is onboarding."
    records = await import_turns(api_client, turns)
    await wait_journaled(api_client, [r["id"] for r in records])
    turn_id = records[1]["id"]

    starred = await api_client.post(f"/v1/turns/{turn_id}/star")
    assert starred.status_code == 200 and starred.json()["is_starred"] is True
    assert (await api_client.get(f"/v1/turns/{turn_id}")).json()["is_starred"] is True
    unstarred = await api_client.delete(f"/v1/turns/{turn_id}/star")
    assert unstarred.status_code == 200 and unstarred.json()["is_starred"] is False

    facts = (await api_client.get("/v1/memory")).json()["items"]
    assert {f["turn_id"] for f in facts} == {turn_id} and len(facts) == 3  # the role, Acme, QA
    assert (await api_client.delete(f"/v1/turns/{turn_id}")).status_code == 204
    assert (await api_client.get(f"/v1/turns/{turn_id}")).status_code == 404
    uid = uuid.UUID(turn_id)
    assert await db.fetchval("SELECT count(*) FROM journal WHERE turn_id = $1", uid) == 0
    assert await db.fetchval("SELECT count(*) FROM memory_facts WHERE turn_id = $1", uid) == 0
    assert (await api_client.get("/v1/memory")).json()["items"] == []
    journal = (await api_client.get("/v1/journal")).json()["items"]
    assert turn_id not in {e["turn_id"] for e in journal} and len(journal) == 2
    assert (await api_client.delete(f"/v1/turns/{turn_id}")).status_code == 404


async def test_another_user_gets_404s_and_empty_lists(make_client: ClientFactory) -> None:
    owner, other = await make_client(), await make_client()
    turns = history(2)
    turns[0]["user_message"] = "I am the CFO of Borealis. Gunnar, don't use sports analogies."
    records = await import_turns(owner, turns)
    await wait_journaled(owner, [r["id"] for r in records])
    turn_id = records[0]["id"]
    fact, _company = (await owner.get("/v1/memory")).json()["items"]  # the CFO, of Borealis

    for method, path in [
        ("GET", f"/v1/turns/{turn_id}"),
        ("POST", f"/v1/turns/{turn_id}/star"),
        ("DELETE", f"/v1/turns/{turn_id}/star"),
        ("DELETE", f"/v1/turns/{turn_id}"),
        ("DELETE", f"/v1/memory/{fact['id']}"),
    ]:
        response = await other.request(method, path)
        assert response.status_code == 404, (method, path)
        assert "not found" in response.json()["detail"].lower()
    for path in ["/v1/turns", "/v1/journal", "/v1/instructions", "/v1/memory"]:
        assert (await other.get(path)).json()["items"] == [], path
    export = (await other.get("/v1/memory/export")).json()["files"]
    assert "Borealis" not in export["USER_MEMORY.md"]
    # the owner's data is untouched
    assert (await owner.get(f"/v1/turns/{turn_id}")).json()["is_starred"] is False
    assert len((await owner.get("/v1/memory")).json()["items"]) == 2


async def test_malformed_ids_and_bad_imports_get_clear_errors_and_change_nothing(
    api_client: httpx.AsyncClient,
) -> None:
    for method, path in [
        ("GET", "/v1/turns/not-a-uuid"),
        ("POST", "/v1/turns/123/star"),
        ("DELETE", "/v1/turns/xyz"),
        ("DELETE", "/v1/memory/xyz"),
        ("DELETE", f"/v1/memory/{uuid.uuid4()}"),
        ("DELETE", f"/v1/turns/{uuid.uuid4()}"),
    ]:
        response = await api_client.request(method, path)
        assert response.status_code == 404, (method, path)
        assert "GET /v1/" in response.json()["detail"]

    too_many = {"turns": history(1001)}
    response = await api_client.post("/v1/turns/import", json=too_many)
    assert response.status_code == 413
    assert "1000" in response.json()["detail"]

    unknown = history(3)
    unknown[2]["persona"] = "batman"
    response = await api_client.post("/v1/turns/import", json={"turns": unknown})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "batman" in detail and "gunnar" in detail and "samara" in detail

    for body in [{}, {"turns": []}, {"turns": [{"persona": "gunnar"}]}, {"turns": "x"}]:
        response = await api_client.post("/v1/turns/import", json=body)
        assert response.status_code == 422, body
        assert response.json()["detail"].startswith("Invalid request")
    bad_time = history(1)
    bad_time[0]["created_at"] = "last tuesday"
    response = await api_client.post("/v1/turns/import", json={"turns": bad_time})
    assert response.status_code == 422

    response = await api_client.get("/v1/turns", params={"before": "garbage"})
    assert response.status_code == 422 and "next" in response.json()["detail"]
    response = await api_client.get("/v1/instructions", params={"persona": "batman"})
    assert response.status_code == 422 and "gunnar" in response.json()["detail"]
    assert (await api_client.get("/v1/turns")).json() == {"items": [], "next": None}


async def test_a_turn_without_a_time_is_stored_now_and_in_order(
    api_client: httpx.AsyncClient,
) -> None:
    turns = [
        {"persona": "vlad", "user_message": f"message {i}", "ai_response": "ok"} for i in range(3)
    ]
    before = datetime.now(UTC)
    records = await import_turns(api_client, turns)
    listed = (await api_client.get("/v1/turns")).json()["items"]
    assert [t["user_message"] for t in listed] == ["message 2", "message 1", "message 0"]
    assert all(datetime.fromisoformat(r["created_at"]) >= before for r in records)


async def test_identical_untimed_turns_are_each_stored_once(api_client: httpx.AsyncClient) -> None:
    turns = [{"persona": "vlad", "user_message": "ok", "ai_response": "ok"}] * 2
    first = await import_turns(api_client, turns)
    again = await import_turns(api_client, turns)
    assert len({r["id"] for r in first}) == 2
    assert [r["id"] for r in again] == [r["id"] for r in first]
    assert len((await api_client.get("/v1/turns")).json()["items"]) == 2


async def test_an_imported_field_over_the_limit_is_refused_naming_it(
    api_client: httpx.AsyncClient,
) -> None:
    turn = {"persona": "gunnar", "user_message": "hello", "ai_response": "x" * 100_001}
    response = await api_client.post("/v1/turns/import", json={"turns": [turn]})
    assert response.status_code == 422
    assert "ai_response" in response.json()["detail"] and "100000" in response.json()["detail"]
    assert (await api_client.get("/v1/turns")).json()["items"] == []
