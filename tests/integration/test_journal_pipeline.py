"""A turn's way into the journal through the real bus: secrets kept out of every store, model
calls recorded against the turn, redeliveries that duplicate nothing, deleted turns dropped."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from faststream.exceptions import NackMessage
from faststream.nats import NatsBroker

from shared.bus import create_broker, publish_event
from shared.config import pipeline_settings
from shared.contracts import Subject, TurnCompleted
from shared.db.turns import NewTurn, insert_turn
from shared.errors import ModelOutputError
from shared.launcher.stack import Stack
from shared.pipeline import run_step
from tests.helpers import import_turns, park_turn, wait_journaled

SECRETS = {
    "password": "hunter2xyz",
    "api key": "sk-proj-Zx81Kq0Pw3Lm7Nb2Vc5Tr9Yu",
    "ssn": "123-45-6789",
    "card": "4111 1111 1111 1111",
}
SECRET_MESSAGE = (
    f"I am the admin of our billing system. My password is {SECRETS['password']} and the "
    f"api key is {SECRETS['api key']}. My SSN is {SECRETS['ssn']}; the company card is "
    f"{SECRETS['card']}. Our bottleneck is onboarding. Should we rotate everything?"
)
SECRET_ANSWER = (
    f"Rotate the key {SECRETS['api key']} today and never share the password "
    f"{SECRETS['password']} in chat. The card {SECRETS['card']} should be frozen."
)


@pytest.fixture
async def broker(system: Stack) -> AsyncIterator[NatsBroker]:
    broker = create_broker(system.nats_url)
    await broker.start()
    yield broker
    await broker.stop()


async def _everything_stored(db: asyncpg.Pool, client: httpx.AsyncClient) -> str:
    """Every text the user's turns left anywhere: superjournal, journal, facts, the export."""
    user_id = client.user_id  # type: ignore[attr-defined]
    parts = []
    for table in ("superjournal", "journal", "memory_facts"):
        rows = await db.fetch(f"SELECT * FROM {table} WHERE user_id = $1", user_id)
        parts.extend(json.dumps({k: str(v) for k, v in dict(r).items()}) for r in rows)
    parts.append(json.dumps((await client.get("/v1/memory/export")).json()))
    parts.append((await client.get("/v1/turns")).text)
    parts.append((await client.get("/v1/journal")).text)
    return "\n".join(parts)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


async def test_secrets_in_an_imported_turn_are_never_stored(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    [record] = await import_turns(
        api_client,
        [{"persona": "stefan", "user_message": SECRET_MESSAGE, "ai_response": SECRET_ANSWER}],
    )
    assert "[redacted password]" in record["user_message"]
    assert "[redacted API key]" in record["user_message"]
    assert "[redacted SSN]" in record["user_message"]
    assert "[redacted card number]" in record["user_message"]
    await wait_journaled(api_client, [record["id"]])
    stored = await _everything_stored(db, api_client)
    for secret in SECRETS.values():
        assert secret not in stored
    assert "4111111111111111" not in _digits(stored)
    facts = (await api_client.get("/v1/memory")).json()["items"]
    # a sentence holding a secret gives no fact; the turn's other sentences still do
    assert "The company's bottleneck is onboarding." in {f["fact"] for f in facts}


async def test_a_secret_that_reached_the_superjournal_stays_out_of_journal_and_memory(
    api_client: httpx.AsyncClient, db: asyncpg.Pool, broker: NatsBroker
) -> None:
    """Defence in depth: a writer that forgot to redact (stored as is) still leaves the journal,
    the facts and the export clean."""
    user_id = api_client.user_id  # type: ignore[attr-defined]
    message = f"I am the CTO and my password is {SECRETS['password']}. Our bottleneck is QA."
    row = await insert_turn(
        db, NewTurn(user_id=user_id, persona_name="vlad", user_message=message, ai_response="ok")
    )
    await publish_event(
        broker, Subject.TURN_COMPLETED, TurnCompleted(turn_id=row["id"], user_id=user_id)
    )
    await wait_journaled(api_client, [str(row["id"])])
    entry = await db.fetchrow("SELECT * FROM journal WHERE turn_id = $1", row["id"])
    cut_text = json.dumps({k: str(v) for k, v in dict(entry).items()})
    assert SECRETS["password"] not in cut_text
    facts = (await api_client.get("/v1/memory")).json()["items"]
    assert [f["fact"] for f in facts] == ["The company's bottleneck is QA."]
    export = json.dumps((await api_client.get("/v1/memory/export")).json())
    assert SECRETS["password"] not in export and "CTO" not in export


async def test_model_calls_of_a_turn_are_recorded_against_it(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    [record] = await import_turns(
        api_client,
        [{"persona": "kirby", "user_message": "I am a founder. Price?", "ai_response": "Test."}],
    )
    await wait_journaled(api_client, [record["id"]])
    roles = await db.fetch(
        "SELECT role, provider FROM model_calls WHERE turn_id = $1 ORDER BY role",
        uuid.UUID(record["id"]),
    )
    assert {r["role"] for r in roles} == {"compress", "verify", "memory", "embed"}
    assert {r["provider"] for r in roles} == {"local"}


async def test_memory_facts_appear_once_however_often_they_are_stated(
    api_client: httpx.AsyncClient,
) -> None:
    turns = [
        {
            "persona": persona,
            "user_message": message,
            "ai_response": "Understood.",
            "created_at": f"2025-03-0{day}T10:00:00Z",
        }
        for day, (persona, message) in enumerate(
            [
                ("gunnar", "I am the head of sales at Acme. Our bottleneck is onboarding."),
                ("vlad", "As I said: I am the Head of Sales at Acme! What about pricing?"),
                ("kirby", "our bottleneck is   onboarding"),
                # "I prefer short answers" would be an instruction (every advisor's), so no fact
                ("samara", "I prefer short meetings. We keep running into supplier delays."),
            ],
            start=1,
        )
    ]
    records = await import_turns(api_client, turns)
    await wait_journaled(api_client, [r["id"] for r in records])
    facts = (await api_client.get("/v1/memory")).json()["items"]
    # restatements collapse onto one row, whichever turn was journaled first
    assert sorted((f["kind"], f["fact"].lower()) for f in facts) == [
        ("company", "the company keeps running into supplier delays."),
        ("company", "the company's bottleneck is onboarding."),
        ("company", "the user's company is called acme."),  # the name, said beside the role
        ("user", "the user is the head of sales at acme."),
        ("user", "the user prefers short meetings."),
    ]
    assert all(0.8 < f["confidence"] <= 1 for f in facts)
    turn_ids = [r["id"] for r in records]
    [acme] = [f for f in facts if "head of sales at acme" in f["fact"].lower()]
    assert acme["turn_id"] in turn_ids[:2]

    export = (await api_client.get("/v1/memory/export")).json()["files"]
    assert set(export) == {"USER_MEMORY.md", "COMPANY_MEMORY.md"}
    user_md, company_md = export["USER_MEMORY.md"], export["COMPANY_MEMORY.md"]
    assert user_md.startswith("# User memory")
    assert company_md.startswith("# Company memory")
    # dated by the turn it was learned from
    assert acme["created_at"][:10] in ("2025-03-01", "2025-03-02")
    assert f"- {acme['fact']} (confidence 0.90, {acme['created_at'][:10]})" in user_md
    assert user_md.count("\n- ") == 2 and company_md.count("\n- ") == 3

    [onboarding] = [f for f in facts if "onboarding" in f["fact"]]
    assert (await api_client.delete(f"/v1/memory/{onboarding['id']}")).status_code == 204
    assert (await api_client.delete(f"/v1/memory/{onboarding['id']}")).status_code == 404
    remaining = (await api_client.get("/v1/memory")).json()["items"]
    assert onboarding["id"] not in {f["id"] for f in remaining} and len(remaining) == 4
    assert "onboarding" not in (await api_client.get("/v1/memory/export")).text


async def test_a_redelivered_turn_completed_duplicates_nothing(
    api_client: httpx.AsyncClient, db: asyncpg.Pool, broker: NatsBroker
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    [record] = await import_turns(
        api_client,
        [
            {
                "persona": "ananya",
                "user_message": "I am the COO of Nimbus. We learned that pilots close faster.",
                "ai_response": "Then lead with a pilot offer.",
            }
        ],
    )
    await wait_journaled(api_client, [record["id"]])
    turn_id = uuid.UUID(record["id"])
    before = await db.fetchrow("SELECT * FROM journal WHERE turn_id = $1", turn_id)
    facts_before = await db.fetch("SELECT id FROM memory_facts WHERE turn_id = $1", turn_id)
    assert len(facts_before) == 3  # the role, the company's name, the lesson

    # the same event again, as a redelivery after a crash would bring it (another attempt, so
    # JetStream's de-duplication lets it through): it must run the whole way and change nothing
    await db.execute("UPDATE superjournal SET journal_status = 'pending' WHERE id = $1", turn_id)
    for attempt in (2, 3):
        await publish_event(
            broker,
            Subject.TURN_COMPLETED,
            TurnCompleted(turn_id=turn_id, user_id=user_id, attempt=attempt),
        )
    await wait_journaled(api_client, [record["id"]])
    await asyncio.sleep(0.5)  # the second redelivery has run too
    assert await db.fetchval("SELECT count(*) FROM journal WHERE turn_id = $1", turn_id) == 1
    after = await db.fetchrow("SELECT * FROM journal WHERE turn_id = $1", turn_id)
    assert dict(after)["decision_arc_summary"] == dict(before)["decision_arc_summary"]
    facts_after = await db.fetch("SELECT id FROM memory_facts WHERE turn_id = $1", turn_id)
    assert sorted(f["id"] for f in facts_after) == sorted(f["id"] for f in facts_before)
    compress_calls = await db.fetchval(
        "SELECT count(*) FROM model_calls WHERE turn_id = $1 AND role = 'compress'", turn_id
    )
    assert compress_calls == 1  # the stored cut was reused, not made again


async def test_events_of_a_deleted_turn_are_dropped(
    api_client: httpx.AsyncClient, db: asyncpg.Pool, broker: NatsBroker
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    row = await park_turn(  # stored without the dispatcher sending it: only our event will
        db,
        NewTurn(
            user_id=user_id,
            persona_name="gunnar",
            user_message="I am the CEO of Gone Ltd.",
            ai_response="Noted.",
        ),
    )
    await db.execute("DELETE FROM superjournal WHERE id = $1", row["id"])
    await publish_event(
        broker, Subject.TURN_COMPLETED, TurnCompleted(turn_id=row["id"], user_id=user_id)
    )
    # a later turn of the same user goes through: the deleted one left nothing behind
    [later] = await import_turns(
        api_client, [{"persona": "gunnar", "user_message": "Hello again.", "ai_response": "Hi."}]
    )
    await wait_journaled(api_client, [later["id"]])
    await asyncio.sleep(0.3)
    assert await db.fetchval("SELECT count(*) FROM journal WHERE turn_id = $1", row["id"]) == 0
    assert await db.fetchval("SELECT count(*) FROM model_calls WHERE turn_id = $1", row["id"]) == 0
    assert (await api_client.get("/v1/memory")).json()["items"] == []


class _Delivery:
    """The parts of a JetStream message run_step reads: its subject (for the failure metrics),
    delivery count and heartbeat."""

    def __init__(self, num_delivered: int) -> None:
        metadata = type("Meta", (), {"num_delivered": num_delivered})()
        self.raw_message = type("Raw", (), {"subject": "turn.completed", "metadata": metadata})()

    async def in_progress(self) -> None:
        return None


async def test_a_turn_step_that_fails_for_good_leaves_the_reason_on_the_turn(
    api_client: httpx.AsyncClient, db: asyncpg.Pool, broker: NatsBroker
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    rows = [
        await park_turn(
            db, NewTurn(user_id=user_id, persona_name="vlad", user_message=m, ai_response="ok")
        )
        for m in ("first", "second")
    ]

    async def invalid_model(event: TurnCompleted, pool: asyncpg.Pool, b: NatsBroker) -> None:
        raise ModelOutputError("turn_cut_2a: invalid JSON from the model")

    async def flaky(event: TurnCompleted, pool: asyncpg.Pool, b: NatsBroker) -> None:
        raise ConnectionError("model server reset the connection")

    first = TurnCompleted(turn_id=rows[0]["id"], user_id=user_id)
    await run_step(invalid_model, event=first, msg=_Delivery(1), pool=db, broker=broker)  # type: ignore[arg-type]
    second = TurnCompleted(turn_id=rows[1]["id"], user_id=user_id)
    with pytest.raises(NackMessage):  # a transient error is retried while deliveries remain
        await run_step(flaky, event=second, msg=_Delivery(1), pool=db, broker=broker)  # type: ignore[arg-type]
    assert (await api_client.get(f"/v1/turns/{rows[1]['id']}")).json()["journal_status"] == (
        "pending"
    )
    last = _Delivery(pipeline_settings().max_deliveries)
    await run_step(flaky, event=second, msg=last, pool=db, broker=broker)  # type: ignore[arg-type]

    failed = [(await api_client.get(f"/v1/turns/{row['id']}")).json() for row in rows]
    assert [t["journal_status"] for t in failed] == ["failed", "failed"]
    # a model's failure in words (its message stays in the log); an unnamed model is still one
    assert failed[0]["journal_error"].startswith(
        "Journaling this turn needs the language model, and it answered in a form Artisan could"
        " not use. The turn itself is kept"
    )
    assert "ConnectionError: model server reset the connection" in failed[1]["journal_error"]
    with pytest.raises(AssertionError, match="failed to journal"):
        await wait_journaled(api_client, [str(rows[0]["id"])], timeout=1)
