"""The outbox: committed work reaches the pipeline without the request that stored it, each
user's files go a few at a time, and work whose messages were lost is re-driven."""

import asyncio
import time
import uuid
from collections import Counter
from typing import Any

import asyncpg
import httpx

from services.gateway import outbox
from shared.config import DispatchSettings
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
    many = 3 * CAP
    response = await busy.post(
        "/v1/files", files=[("files", (f"n{i}.md", note(i), "text/markdown")) for i in range(many)]
    )
    assert response.status_code == 202
    busy_ids = [uuid.UUID(r["id"]) for r in response.json()["items"]]
    [single] = (
        await other.post("/v1/files", files=[("files", ("mine.md", note(-1), "text/markdown"))])
    ).json()["items"]

    most_in_flight = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        in_flight, waiting = await _busy_users_files(db, busy_ids)
        most_in_flight = max(most_in_flight, in_flight)
        if in_flight == waiting == 0:
            break
        await asyncio.sleep(0.05)
    await wait_for_status(other, single["id"], "ready")
    # more than a share is allowed while the busy user's files are the only ones waiting and the
    # pipeline keeps up (the next test); the single file's place in the order is what matters
    assert most_in_flight > 0
    finished = await db.fetch(
        "SELECT id, updated_at FROM files WHERE id = ANY($1::uuid[]) ORDER BY updated_at",
        [*busy_ids, uuid.UUID(single["id"])],
    )
    order = [row["id"] for row in finished]
    # the single file started behind at most one share of the busy user's files, not all of them
    assert order.index(uuid.UUID(single["id"])) < 2 * CAP


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
    user, _ = await users.create_user(conn, name="share")
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


async def _busy_users_files(db: asyncpg.Pool, ids: list[uuid.UUID]) -> tuple[int, int]:
    row = await db.fetchrow(
        """SELECT count(*) FILTER (WHERE processing_stage <> 'queued') AS in_flight,
                  count(*) FILTER (WHERE processing_stage = 'queued') AS waiting
           FROM files WHERE id = ANY($1::uuid[]) AND status = 'processing'""",
        ids,
    )
    return row["in_flight"], row["waiting"]


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
