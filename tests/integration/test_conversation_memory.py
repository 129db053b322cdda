"""Conversations and what a question sees (issue 13, item 2): a question goes to the persona's
latest conversation or starts one; P1 comes from the conversation asked in while starred turns,
instructions and the journal span all of them; turns from before conversations migrate into
one."""

import asyncio
import shutil
import uuid
from pathlib import Path

import asyncpg
import httpx
import pytest

from shared.db.migrations import apply_migrations, migration_files
from shared.launcher.embedded import start_postgres
from tests.helpers import wait_journaled
from tests.integration.test_chat import chat
from tests.integration.test_context import preview, section
from tests.integration.test_conversations import import_turns_into, said, start, turns_of

pytestmark = pytest.mark.asyncio(loop_scope="session")

FIRST_MIGRATION_WITH_CONVERSATIONS = "0011_conversations.sql"


async def test_a_question_goes_to_the_personas_latest_conversation_or_starts_one(
    api_client: httpx.AsyncClient,
) -> None:
    _, first = await chat(api_client, persona="gunnar", message="Who are you?")
    _, second = await chat(api_client, persona="gunnar", message="What is your role?")
    assert first["conversation_id"] == second["conversation_id"]
    _, other = await chat(api_client, persona="kirby", message="Who are you?")
    assert other["conversation_id"] != first["conversation_id"]
    started = await start(api_client, "gunnar", title="A fresh start")
    _, third = await chat(
        api_client, persona="gunnar", message="Who are you?", conversation_id=started["id"]
    )
    assert third["conversation_id"] == started["id"]
    _, fourth = await chat(api_client, persona="gunnar", message="What do you do?")
    assert fourth["conversation_id"] == started["id"]  # now gunnar's latest
    assert [t["id"] for t in await turns_of(api_client, started["id"])] == [
        fourth["turn_id"],
        third["turn_id"],
    ]
    assert len(await turns_of(api_client, first["conversation_id"])) == 2

    wrong = await api_client.post(
        "/v1/chat",
        json={"persona": "vlad", "message": "Hi?", "conversation_id": started["id"]},
    )
    assert wrong.status_code == 409 and "with Gunnar" in wrong.json()["detail"]
    unknown = await api_client.post(
        "/v1/chat",
        json={"persona": "gunnar", "message": "Hi?", "conversation_id": str(uuid.uuid4())},
    )
    assert unknown.status_code == 404
    assert (
        await api_client.get("/v1/turns", params={"conversation_id": "nope"})
    ).status_code == 404


async def test_an_answer_reads_the_last_turns_of_its_own_conversation(
    api_client: httpx.AsyncClient,
) -> None:
    """The chat asks for the context of the conversation it answers in: its first question has
    no recent turns, the second has the first, another conversation's first has none."""
    question = "How should we price the Pro plan?"
    fresh, other = await start(api_client, "vlad"), await start(api_client, "vlad")
    answers = [
        (await chat(api_client, persona="vlad", message=question, conversation_id=where))[1]
        for where in (fresh["id"], fresh["id"], other["id"])
    ]
    recent = [
        next(s["tokens"] for s in done["sections"] if s["name"] == "recent_turns")
        for done in answers
    ]
    assert recent[0] == 0 and recent[1] > 0 and recent[2] == 0, recent


async def test_p1_comes_from_the_conversation_while_memory_spans_them_all(
    api_client: httpx.AsyncClient,
) -> None:
    old = await start(api_client, "gunnar", title="Old")
    new = await start(api_client, "gunnar", title="New")
    in_old = await import_turns_into(
        api_client,
        old["id"],
        [
            said("gunnar", "Remember this: our north star is weekly active teams."),
            said("gunnar", "Always answer in English.", "Understood."),
            *[said("gunnar", f"Old question {n} about the office move?") for n in range(6)],
        ],
    )
    in_new = await import_turns_into(
        api_client, new["id"], [said("gunnar", f"New question {n} on churn?") for n in range(3)]
    )
    await wait_journaled(api_client, [t["id"] for t in in_old + in_new])
    starred, instruction = in_old[0]["id"], in_old[1]["id"]
    assert (await api_client.post(f"/v1/turns/{starred}/star")).status_code == 200

    asked_new = await preview(
        api_client, "gunnar", "What is our north star?", conversation_id=new["id"]
    )
    recent = [i["id"] for i in section(asked_new, "recent_turns")]
    assert recent == [t["id"] for t in in_new]  # P1: this conversation alone, oldest first
    assert [i["id"] for i in section(asked_new, "starred")] == [starred]
    assert [i["id"] for i in section(asked_new, "instructions")] == [instruction]
    journal = {i["id"] for i in section(asked_new, "journal")}
    assert {t["id"] for t in in_old[2:]} <= journal  # P4 spans every conversation

    asked_old = await preview(api_client, "gunnar", "Any news?", conversation_id=old["id"])
    assert [i["id"] for i in section(asked_old, "recent_turns")] == [t["id"] for t in in_old[-5:]]
    # without one, the persona's latest conversation (the last turns went into `new`)
    latest = await preview(api_client, "gunnar", "Any news?")
    assert [i["id"] for i in section(latest, "recent_turns")] == recent
    # a persona with no conversation yet: no recent turns, the rest as ever
    vlad = await preview(api_client, "vlad", "What is our north star?")
    assert section(vlad, "recent_turns") == [] and section(vlad, "starred")
    wrong = await api_client.get(
        "/v1/context/preview",
        params={"persona": "vlad", "q": "Hi?", "conversation_id": new["id"]},
    )
    assert wrong.status_code == 409


async def test_existing_turns_migrate_into_one_conversation(tmp_path: Path) -> None:
    """A database with turns from before conversations: each user's turns land in one
    conversation with the persona of their latest turn; their journal rows and facts stay."""
    before = tmp_path / "before"
    before.mkdir()
    for path in migration_files():
        if path.name < FIRST_MIGRATION_WITH_CONVERSATIONS:
            shutil.copy(path, before / path.name)
    # a server of its own: the session's database is the other tests'
    postgres = await asyncio.to_thread(start_postgres, tmp_path / "postgres")
    try:
        await apply_migrations(postgres.url, before)
        conn = await asyncpg.connect(postgres.url)
        try:
            maya, lone = await old_turns(conn)
            assert await apply_migrations(postgres.url) == [
                p.name for p in migration_files() if p.name >= FIRST_MIGRATION_WITH_CONVERSATIONS
            ]
            await assert_one_conversation_each(conn, maya, lone)
        finally:
            await conn.close()
    finally:
        await asyncio.to_thread(postgres.stop)


async def assert_one_conversation_each(
    conn: asyncpg.Connection, maya: uuid.UUID, lone: uuid.UUID
) -> None:
    conversations = await conn.fetch("SELECT * FROM conversations ORDER BY created_at")
    assert [(c["user_id"], c["persona_name"], c["title"]) for c in conversations] == [
        (maya, "vlad", "Earlier conversation")
    ]
    [only] = conversations
    turns = await conn.fetch("SELECT conversation_id, created_at FROM superjournal")
    assert {t["conversation_id"] for t in turns} == {only["id"]}
    assert only["created_at"] == min(t["created_at"] for t in turns)
    assert only["updated_at"] == max(t["created_at"] for t in turns)
    assert await conn.fetchval("SELECT count(*) FROM journal") == 1
    assert await conn.fetchval("SELECT count(*) FROM memory_facts") == 1
    assert lone not in {c["user_id"] for c in conversations}  # no turns, no conversation
    with pytest.raises(asyncpg.NotNullViolationError):
        await conn.execute(
            """INSERT INTO superjournal (id, user_id, persona_name, user_message, ai_response)
               VALUES ($1, $2, 'vlad', 'x', 'y')""",
            uuid.uuid4(),
            maya,
        )


async def old_turns(conn: asyncpg.Connection) -> tuple[uuid.UUID, uuid.UUID]:
    """Two users as 0010 left them: one with three turns (the last with vlad, one journaled,
    one fact learned), one with none."""
    maya, lone = uuid.uuid4(), uuid.uuid4()
    for user, key in ((maya, "a"), (lone, "b")):
        await conn.execute(
            "INSERT INTO users (id, name, api_key_hash) VALUES ($1, $2, $3)", user, key, key
        )
    turns = [(uuid.uuid4(), persona, day) for persona, day in (("gunnar", 1), ("kirby", 2))]
    turns.append((uuid.uuid4(), "vlad", 3))
    for turn_id, persona, day in turns:
        await conn.execute(
            """INSERT INTO superjournal (id, user_id, persona_name, user_message, ai_response,
                   created_at) VALUES ($1, $2, $3, 'My name is Maya.', 'Hello Maya.',
                   '2026-01-01'::timestamptz + $4 * interval '1 day')""",
            turn_id,
            maya,
            persona,
            day,
        )
    first = turns[0][0]
    await conn.execute(
        """INSERT INTO journal (turn_id, user_id, persona_name, boss_essence, persona_essence,
               decision_arc_summary, salience_score, created_at)
           VALUES ($1, $2, 'gunnar', 'Maya', 'Hello', 'Name', 3, now())""",
        first,
        maya,
    )
    await conn.execute(
        """INSERT INTO memory_facts (id, user_id, kind, fact, fact_key, confidence, turn_id)
           VALUES ($1, $2, 'user', 'The user is Maya.', 'the user is maya', 0.9, $3)""",
        uuid.uuid4(),
        maya,
        first,
    )
    return maya, lone
