"""The outbox: committed work reaches the pipeline without the request that stored it, each
user's files go a few at a time, and work whose messages were lost is re-driven."""

import uuid
from collections import Counter
from typing import Any

import asyncpg
import httpx

from services.gateway.dispatch import outbox
from services.gateway.dispatch.settings import DispatchSettings
from shared.db import files, turns, users
from shared.db.turns import NewTurn
from tests.conftest import ClientFactory
from tests.helpers import park_file, wait_for_status, wait_journaled

CAP = DispatchSettings().files_in_flight_per_user


def note(n: int) -> bytes:
    return f"# Note {n} {uuid.uuid4()}\n\nWe decided to ship build {n} on Friday.\n".encode()


async def _stranded(db: asyncpg.Pool, user_id: uuid.UUID, **columns: Any) -> str:
    """A file whose event was lost an hour ago: nothing on the bus will ever move it."""
    row = await park_file(db, user_id, filename="lost.md", data=note(0))
    assignments = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=2))
    await db.execute(
        "UPDATE files SET updated_at = now() - interval '1 hour'"
        + (f", {assignments}" if columns else "")
        + " WHERE id = $1",
        row["id"],
        *columns.values(),
    )
    return str(row["id"])


async def test_a_file_committed_without_its_request_finishing_is_processed(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    """What a gateway killed right after its commit leaves behind: a queued row, nothing sent."""
    row = await park_file(db, api_client.user_id, filename="orphan.md", data=note(1))
    await db.execute("UPDATE files SET processing_stage = 'queued' WHERE id = $1", row["id"])
    await wait_for_status(api_client, str(row["id"]), "ready")
    assert await db.fetchval("SELECT attempt FROM files WHERE id = $1", row["id"]) == 1


async def test_a_turn_stored_but_never_published_is_journaled(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    stored = await turns.insert_turn(
        db,
        NewTurn(
            user_id=api_client.user_id,
            persona_name="gunnar",
            user_message="We decided to hire two engineers in March.",
            ai_response="Noted.",
        ),
    )
    await wait_journaled(api_client, [str(stored["id"])])


async def test_one_users_many_files_do_not_hold_up_anothers_one(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    busy, other = await make_client(), await make_client()
    response = await busy.post(
        "/v1/files",
        files=[("files", (f"n{i}.md", note(i), "text/markdown")) for i in range(4 * CAP)],
    )
    assert response.status_code == 202
    busy_ids = [uuid.UUID(r["id"]) for r in response.json()["items"]]
    [single] = (
        await other.post("/v1/files", files=[("files", ("mine.md", note(-1), "text/markdown"))])
    ).json()["items"]
    # alone, the busy user may have had two shares in flight (the test system's
    # ARTISAN_FILES_IN_FLIGHT_ALONE), never all four
    queued_then = await _queued(db, busy_ids)
    assert len(queued_then) >= CAP

    await wait_for_status(other, single["id"], "ready")
    for file_id in busy_ids:
        await wait_for_status(busy, str(file_id), "ready")
    finished = await db.fetch(
        "SELECT id FROM files WHERE id = ANY($1::uuid[]) ORDER BY updated_at",
        [*queued_then, uuid.UUID(single["id"])],
    )
    order = [row["id"] for row in finished]
    # the single file went at the next dispatch, ahead of the busy user's waiting files: at most
    # one share of them (dispatched once the busy user's in flight fell below it) finish first
    assert order.index(uuid.UUID(single["id"])) <= CAP


async def _queued(db: asyncpg.Pool, ids: list[uuid.UUID]) -> list[uuid.UUID]:
    rows = await db.fetch(
        "SELECT id FROM files WHERE id = ANY($1::uuid[]) AND processing_stage = 'queued'", ids
    )
    return [row["id"] for row in rows]


async def test_a_lone_user_gets_more_in_flight_and_another_users_file_still_goes_first(
    db: asyncpg.Pool,
) -> None:
    """The outbox's choice, in a transaction the running dispatcher never sees (rolled back)."""
    async with db.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        try:
            busy = await _user_with_files(conn, queued=4 * CAP, in_flight=CAP)
            chosen = await _next(conn, alone_extra=CAP, alone_max=3 * CAP)
            # alone and the pipeline keeping up: one share more than in flight
            assert chosen == {busy: CAP}
            # not keeping up (no extra): the share alone, which is full
            assert await _next(conn, alone_extra=0, alone_max=3 * CAP) == {}
            # never past the lone user's most
            assert await _next(conn, alone_extra=CAP, alone_max=CAP + 3) == {busy: 3}
            other = await _user_with_files(conn, queued=1, in_flight=0)
            # another user waits: the busy user is back to its share, the other's file goes
            assert await _next(conn, alone_extra=CAP, alone_max=3 * CAP) == {other: 1}
        finally:
            await transaction.rollback()


async def _user_with_files(conn: asyncpg.Connection, *, queued: int, in_flight: int) -> uuid.UUID:
    user, _ = await users.create_user(conn, name=f"share-{uuid.uuid4().hex[:8]}")
    for n in range(queued + in_flight):
        row, _ = await files.insert_file(
            conn,
            user_id=user.id,
            filename=f"n{n}.md",
            media_type="text/markdown",
            content_hash=uuid.uuid4().hex,
            data=note(n),
        )
        if n < in_flight:
            await conn.execute(
                "UPDATE files SET processing_stage = 'extracting' WHERE id = $1", row["id"]
            )
    return user.id


async def _next(conn: asyncpg.Connection, *, alone_extra: int, alone_max: int) -> dict:
    """How many files of each user the dispatcher would publish now."""
    rows = await outbox.next_files(
        conn, per_user=CAP, limit=1000, alone_extra=alone_extra, alone_max=alone_max
    )
    return dict(Counter(row["user_id"] for row in rows))


async def test_a_file_whose_work_was_lost_is_re_driven_to_ready(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    file_id = await _stranded(db, api_client.user_id)
    await wait_for_status(api_client, file_id, "ready", timeout=90)
    row = await db.fetchrow("SELECT attempt, redrives FROM files WHERE id = $1", uuid.UUID(file_id))
    assert (row["attempt"], row["redrives"]) == (2, 1)


async def test_a_file_that_keeps_stalling_fails_with_a_reason(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    redrives = DispatchSettings().max_redrives
    file_id = await _stranded(db, api_client.user_id, redrives=redrives)
    failed = await wait_for_status(api_client, file_id, "failed", timeout=90)
    assert "stopped making progress" in failed["error_message"]
    assert "retry it" in failed["error_message"]


async def test_a_turn_whose_message_was_lost_is_re_driven(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    turn = NewTurn(
        user_id=api_client.user_id,
        persona_name="vlad",
        user_message="We decided to open a Berlin office.",
        ai_response="Noted.",
    )
    async with db.acquire() as conn, conn.transaction():
        stored = await turns.insert_turn(conn, turn)
        # published an hour ago, as far as the row knows; the bus never saw it
        await conn.execute(
            "UPDATE superjournal SET published_at = now() - interval '1 hour' WHERE id = $1",
            stored["id"],
        )
    await wait_journaled(api_client, [str(stored["id"])], timeout=90)
    attempt = await db.fetchval(
        "SELECT journal_attempt FROM superjournal WHERE id = $1", stored["id"]
    )
    assert attempt == 2
