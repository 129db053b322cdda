"""Updates in place keep storage bounded: a version going live deletes what it replaced (chunks,
cuts, vectors, bytes), so a secret removed by an update is gone; a turn that quoted a replaced
passage keeps its citation; a failed update deletes nothing and the stored total stays right."""

import uuid
from uuid import UUID

import asyncpg
import httpx
import pytest

from shared.db import files
from tests.conftest import ClientFactory
from tests.helpers import upload, wait_for_status
from tests.integration.test_chat import chat
from tests.integration.test_file_updates import (
    CHANGED_SECTION,
    NEW_PHRASE,
    _settled_with_error,
    chunk_rows,
    plan,
    put,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

MOBILE_OWNER = "Maria owns the mobile follow-up"
HIRING_OWNER = "Maria owns the hiring follow-up"


async def ready_plan(client: httpx.AsyncClient, text: str) -> dict:
    record = await upload(client, "plan.md", text, "text/markdown")
    return await wait_for_status(client, record["id"], "ready", timeout=60)


async def update_to(client: httpx.AsyncClient, file_id: str, text: str) -> dict:
    response = await put(client, file_id, "plan.md", text)
    assert response.status_code == 202, response.text
    return await wait_for_status(client, file_id, "ready", timeout=60)


async def chunk_versions(db: asyncpg.Pool, file_id: str) -> list[asyncpg.Record]:
    return await db.fetch(
        "SELECT id, version_from, version_to, searchable FROM file_chunks WHERE file_id = $1"
        " ORDER BY id",
        UUID(file_id),
    )


async def tables_holding(db: asyncpg.Pool, words: str) -> set[str]:
    """Every table of the database with a row that holds `words` in any column (bytes too)."""
    columns = await db.fetch(
        """SELECT table_name, column_name, data_type FROM information_schema.columns
           WHERE table_schema = 'public'
             AND table_name IN (SELECT table_name FROM information_schema.tables
                                WHERE table_schema = 'public' AND table_type = 'BASE TABLE')"""
    )
    found = set()
    for column in columns:
        table, name = column["table_name"], column["column_name"]
        holds = (
            f"position(convert_to($1, 'UTF8') IN \"{name}\") > 0"
            if column["data_type"] == "bytea"
            else f"\"{name}\"::text LIKE '%' || $1 || '%'"
        )
        if await db.fetchval(f'SELECT EXISTS (SELECT 1 FROM "{table}" WHERE {holds})', words):
            found.add(table)
    return found


async def test_updates_delete_what_they_replaced_and_a_removed_secret_is_gone(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    secret = f"sekrit{uuid.uuid4().hex[:12]}7"  # one search term, as the index stores it
    first = plan(changed=False, tag="secret").replace(
        MOBILE_OWNER, f"{MOBILE_OWNER} (the vault key is {secret})"
    )
    record = await ready_plan(api_client, first)
    file_id = record["id"]
    assert {"file_chunks", "file_contents", "chunk_terms"} <= await tables_holding(db, secret)

    second = plan(changed=True, tag="secret")  # the mobile section rewritten, without the key
    third = second.replace(HIRING_OWNER, "Jonas owns the hiring follow-up")
    await update_to(api_client, file_id, second)
    ready = await update_to(api_client, file_id, third)

    assert (ready["version"], ready["live_version"]) == (3, 3)
    rows = await chunk_versions(db, file_id)
    assert len(rows) == 24, "one version's chunks, not three"
    assert all(row["version_to"] is None and row["searchable"] for row in rows)
    assert {row["version_from"] for row in rows} == {1, 2, 3}  # unchanged chunks were kept
    assert await tables_holding(db, secret) == set()
    contents = await db.fetch("SELECT version FROM file_contents WHERE file_id = $1", UUID(file_id))
    assert [row["version"] for row in contents] == [3]
    live = await chunk_rows(api_client, file_id)
    assert NEW_PHRASE in live[CHANGED_SECTION]["text"]


async def test_a_turn_that_quoted_a_replaced_passage_keeps_its_citation(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    record = await ready_plan(api_client, plan(changed=False, tag="quoted"))
    file_id = record["id"]
    old_mobile = (await chunk_rows(api_client, file_id))[CHANGED_SECTION]
    _, done = await chat(
        api_client, persona="vlad", message="What was the strongest signal about mobile?"
    )
    quoted = [c for c in done["citations"] if c["chunk_id"] == old_mobile["id"]]
    assert quoted, done["citations"]

    await update_to(api_client, file_id, plan(changed=True, tag="quoted"))

    # the old passage is gone from the file and from the database ...
    assert old_mobile["id"] not in {c["id"] for c in await chunk_rows(api_client, file_id)}
    assert not await db.fetchval(
        "SELECT EXISTS (SELECT 1 FROM file_chunks WHERE id = $1)", UUID(old_mobile["id"])
    )
    # ... and the turn still shows what it quoted from it, where it came from
    response = await api_client.get(f"/v1/turns/{done['turn_id']}")
    assert response.status_code == 200, response.text
    turn = response.json()
    assert turn["ai_response"] == done["answer"]
    [kept] = [c for c in turn["citations"] if c["chunk_id"] == old_mobile["id"]]
    assert kept["filename"] == "plan.md" and kept["title"] == old_mobile["title"]
    assert kept["snippet"] and kept["snippet"] in old_mobile["text"]
    # a new question cites the new version
    _, again = await chat(api_client, persona="vlad", message="What matters more for mobile?")
    new_ids = {c["id"] for c in await chunk_rows(api_client, file_id)}
    assert again["citations"] and all(c["chunk_id"] in new_ids for c in again["citations"])


async def test_a_failed_update_deletes_nothing_and_gives_its_bytes_back(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    record = await ready_plan(api_client, plan(changed=False, tag="fails-storage"))
    file_id = record["id"]
    before = await chunk_versions(db, file_id)
    garbage = bytes(range(256)) * 64  # binary: the extractor refuses it, permanently
    response = await api_client.put(
        f"/v1/files/{file_id}", files=[("files", ("plan.md", garbage, "text/markdown"))]
    )
    assert response.status_code == 202, response.text

    settled = await _settled_with_error(api_client, file_id)
    assert (settled["status"], settled["live_version"]) == ("ready", 1)
    assert await chunk_versions(db, file_id) == before
    stored = await db.fetchrow(
        """SELECT u.stored_bytes, (SELECT sum(size) FROM files WHERE user_id = u.id) AS sizes,
                  (SELECT sum(octet_length(data)) FROM file_contents c
                   JOIN files f ON f.id = c.file_id WHERE f.user_id = u.id) AS kept
           FROM users u WHERE u.id = $1""",
        api_client.user_id,
    )
    assert stored["stored_bytes"] == stored["sizes"] == stored["kept"] == record["size"]


async def test_a_redelivered_switch_deletes_nothing_more(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    client = await make_client()
    record = await ready_plan(client, plan(changed=False, tag="again"))
    ready = await update_to(client, record["id"], plan(changed=True, tag="again"))
    rows = await chunk_versions(db, record["id"])
    attempt = await db.fetchval("SELECT attempt FROM files WHERE id = $1", UUID(record["id"]))

    again = await files.mark_ready(
        db, file_id=UUID(record["id"]), attempt=attempt, summary="a redelivered summary"
    )

    assert again is None  # the version is live already: the step is a no-op
    assert await chunk_versions(db, record["id"]) == rows
    assert (await client.get(f"/v1/files/{record['id']}")).json()["summary"] == ready["summary"]


async def test_an_update_may_be_as_large_as_an_upload(api_client: httpx.AsyncClient) -> None:
    """PUT streams under the upload limits, not those of a JSON body (1 MB)."""
    record = await upload(api_client, "plan.md", "# Plan\n\nShip on Friday.\n", "text/markdown")
    large = b"A line of the plan that repeats.\n" * 45_000  # 1.5 MB, under the 2 MB upload limit
    response = await api_client.put(
        f"/v1/files/{record['id']}", files=[("files", ("plan.txt", large, "text/plain"))]
    )
    # read whole by the route, which refuses another kind of file: not refused unread (413)
    assert response.status_code == 415, response.text
    assert "can only be updated with a .md file" in response.json()["detail"]
