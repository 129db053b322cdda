"""Every list is read a page at a time through the gateway: `limit`, an opaque `before` cursor,
`next` (null on the last page), newest first, the same rows once each; filters; bad cursors and
limits are a 422 that says what to do; a cursor never reaches past its user."""

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from shared.db import documents, file_lists, users
from shared.db.cursors import Cursor
from tests.benchmarks.list_latency import Explained
from tests.conftest import ClientFactory
from tests.helpers import rolled_back, rows_read, upload

# `count` ready (or failed) files, three to a minute: rows with equal times are told apart by id
ADD_FILES = """
    INSERT INTO files (id, user_id, filename, media_type, size, content_hash, status,
                       processing_stage, progress, uploaded_at)
    SELECT gen_random_uuid(), $1::uuid, $2::text || '-' || n || '.md', 'text/markdown', 10,
           $2::text || gen_random_uuid(), $3::text, $3::text, 100,
           $4::timestamptz - (n / 3) * interval '1 minute'
    FROM generate_series(1, $5::int) AS n
    RETURNING id, uploaded_at"""
PAGED_LISTS = [
    "/v1/files",
    "/v1/documents",
    "/v1/memory",
    "/v1/turns",
    "/v1/journal",
    "/v1/conversations",
]


async def add_files(
    db: asyncpg.Pool | asyncpg.Connection,
    user_id: uuid.UUID,
    count: int,
    *,
    newest: datetime,
    status: str = "ready",
    prefix: str = "note",
) -> list[asyncpg.Record]:
    return await db.fetch(ADD_FILES, user_id, prefix, status, newest, count)


def newest_first(rows: list[asyncpg.Record]) -> list[str]:
    return [str(r["id"]) for r in sorted(rows, key=lambda r: (r["uploaded_at"], r["id"]))][::-1]


async def every_page(
    client: httpx.AsyncClient, path: str, **params: Any
) -> tuple[list[dict[str, Any]], int]:
    """Every item, following `next`; and how many pages that took."""
    items: list[dict[str, Any]] = []
    pages, before = 0, None
    while True:
        response = await client.get(
            path, params={**params, **({"before": before} if before else {})}
        )
        assert response.status_code == 200, response.text
        page = response.json()
        items += page["items"]
        pages += 1
        before = page["next"]
        if before is None:
            return items, pages


def cursor_of(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


async def test_250_files_come_once_each_newest_first_while_new_ones_arrive(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    stored = await add_files(db, user_id, 250, newest=datetime.now(UTC) - timedelta(days=1))
    seen: list[str] = []
    newer: list[str] = []
    before = None
    for expected in (100, 100, 50):
        params = {"limit": 100, **({"before": before} if before else {})}
        page = (await api_client.get("/v1/files", params=params)).json()
        assert len(page["items"]) == expected
        seen += [f["id"] for f in page["items"]]
        before = page["next"]
        # files arriving between pages are newer than every page still to come
        newer.append((await upload(api_client, f"new-{len(seen)}.md", f"# New {seen[-1]}"))["id"])
        newer += [str(r["id"]) for r in await add_files(db, user_id, 2, newest=datetime.now(UTC))]
    assert before is None
    assert seen == newest_first(stored)  # each once, in the order of (uploaded_at, id)

    # the first page now starts with what arrived meanwhile, newest first
    first = (await api_client.get("/v1/files", params={"limit": 9})).json()
    assert {f["id"] for f in first["items"]} == set(newer)
    assert first["items"][0]["id"] in newer[-2:] and first["next"]


async def test_status_filter_pages_through_only_that_status(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    ready = await add_files(db, user_id, 30, newest=now)
    failed = await add_files(db, user_id, 7, newest=now - timedelta(minutes=1), status="failed")

    items, pages = await every_page(api_client, "/v1/files", status="failed", limit=3)
    assert [f["id"] for f in items] == newest_first(failed) and pages == 3
    assert {f["status"] for f in items} == {"failed"}
    items, _ = await every_page(api_client, "/v1/files", status="ready", limit=500)
    assert [f["id"] for f in items] == newest_first(ready)
    assert (await api_client.get("/v1/files", params={"status": "processing"})).json() == {
        "items": [],
        "next": None,
    }
    refused = await api_client.get("/v1/files", params={"status": "done"})
    assert refused.status_code == 422
    assert "status" in refused.json()["detail"] and "'failed'" in refused.json()["detail"]


@pytest.mark.parametrize("path", PAGED_LISTS)
async def test_a_cursor_no_page_handed_out_is_a_422_that_says_what_to_pass(
    api_client: httpx.AsyncClient, path: str
) -> None:
    some_id = uuid.uuid4()
    bad = [
        "garbage",
        "%%%",
        "Zm9v",  # "foo"
        cursor_of(f"2025-01-01T00:00:00|{some_id}"),  # a time without its zone
        cursor_of("2025-01-01T00:00:00+00:00|not-a-uuid"),
        cursor_of(f"0001-01-01T00:00:00+01:00|{some_id}"),  # before year 1 in UTC
        cursor_of(f"9999-12-31T23:59:59-05:00|{some_id}"),  # after year 9999 in UTC
        cursor_of("é|ü"),
        "x" * 201,
    ]
    for before in bad:
        response = await api_client.get(path, params={"before": before})
        assert response.status_code == 422, (before, response.text)
        assert "before" in response.json()["detail"], response.text


@pytest.mark.parametrize("path", ["/v1/files", "/v1/documents", "/v1/memory"])
async def test_limit_is_1_to_500(api_client: httpx.AsyncClient, path: str) -> None:
    for limit in ("0", "-1", "501", "1e3", "ten"):
        response = await api_client.get(path, params={"limit": limit})
        assert response.status_code == 422, (limit, response.text)
        assert "limit" in response.json()["detail"], response.text
    too_many = (await api_client.get(path, params={"limit": 501})).json()["detail"]
    assert "less than or equal to 500" in too_many
    assert (await api_client.get(path, params={"limit": 500})).status_code == 200


async def test_files_default_to_pages_of_100(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    await add_files(db, user_id, 101, newest=datetime.now(UTC))
    page = (await api_client.get("/v1/files")).json()
    assert len(page["items"]) == 100 and page["next"]
    last = (await api_client.get("/v1/files", params={"before": page["next"]})).json()
    assert len(last["items"]) == 1 and last["next"] is None


async def test_another_users_cursor_only_moves_within_your_own_list(
    make_client: ClientFactory, db: asyncpg.Pool
) -> None:
    alice, bob = await make_client(), await make_client()
    now = datetime.now(UTC)
    alices = await add_files(db, alice.user_id, 10, newest=now, prefix="alice")  # type: ignore[attr-defined]
    bobs = await add_files(db, bob.user_id, 10, newest=now, prefix="bob")  # type: ignore[attr-defined]

    alice_page = (await alice.get("/v1/files", params={"limit": 4})).json()
    bob_page = (await bob.get("/v1/files", params={"before": alice_page["next"]})).json()
    # Bob's files older than where Alice's page stopped; nothing of Alice's
    stop = Cursor.decode(alice_page["next"])
    older = [r for r in bobs if (r["uploaded_at"], r["id"]) < (stop.created_at, stop.id)]
    assert [f["id"] for f in bob_page["items"]] == newest_first(older)
    assert {f["id"] for f in bob_page["items"]}.isdisjoint({str(r["id"]) for r in alices})
    # a cursor made up to point at one of Alice's files reveals nothing of it either
    target = alices[5]
    made_up = Cursor(target["uploaded_at"] + timedelta(microseconds=1), target["id"]).encode()
    for path in PAGED_LISTS:
        page = (await bob.get(path, params={"before": made_up})).json()
        assert str(target["id"]) not in json.dumps(page)
        assert "alice" not in json.dumps(page)


async def test_documents_are_paged_newest_first(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    [source] = await add_files(db, user_id, 1, newest=datetime.now(UTC))
    made = [
        await documents.insert_document(
            db,
            documents.NewDocument(
                user_id=user_id,
                kind="meeting_summary",
                title=f"Meeting {n}",
                file_id=source["id"],
                filename="note-1.md",
                turn_id=None,
                body=f"# Meeting {n}",
                items=[],
            ),
        )
        for n in range(5)
    ]
    items, pages = await every_page(api_client, "/v1/documents", limit=2)
    expected = sorted(made, key=lambda r: (r["created_at"], r["id"]), reverse=True)
    assert [d["id"] for d in items] == [str(r["id"]) for r in expected] and pages == 3


@pytest.mark.xfail(
    reason="open (issue 29 note): in the full suite the planner at times reads a user's whole"
    " list (5,005 rows) for one of these statements; alone it reads one page",
    strict=False,
)
async def test_the_first_page_reads_one_page_of_index_entries_however_many_files(
    db: asyncpg.Pool,
) -> None:
    """The list's own statements, explained as they run (the later runs of a prepared statement
    may take a generic plan: eight of each are looked at)."""
    async with rolled_back(db) as conn:
        owner, _ = await users.create_user(conn, name="many")
        newest = datetime.now(UTC)
        await add_files(conn, owner.id, 5000, newest=newest)
        await add_files(conn, owner.id, 5, newest=newest - timedelta(days=30), status="failed")
        explained = Explained(conn)
        middle = None
        for _ in range(8):
            page = await file_lists.list_files(explained, user_id=owner.id, limit=100)  # type: ignore[arg-type]
            middle = Cursor.decode(page.next or "")
            await file_lists.list_files(explained, user_id=owner.id, limit=100, before=middle)  # type: ignore[arg-type]
            await file_lists.list_files(explained, user_id=owner.id, limit=100, status="failed")  # type: ignore[arg-type]
    for plan in explained.plans:
        scan = plan["Plans"][0]  # under the Limit
        assert scan["Node Type"] == "Index Scan", json.dumps(plan, indent=1)
        assert rows_read(scan) <= 101, plan


async def test_the_schema_shows_each_lists_parameters_and_page(
    api_client: httpx.AsyncClient,
) -> None:
    schema = (await api_client.get("/openapi.json")).json()
    for path, filters in [
        ("/v1/files", {"status"}),
        ("/v1/documents", set()),
        ("/v1/memory", {"kind"}),
        ("/v1/turns", {"conversation_id"}),
        ("/v1/conversations", {"q", "persona"}),
        ("/v1/journal", set()),
    ]:
        operation = schema["paths"][path]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert names >= {"limit", "before"} | filters, (path, names)
        ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        page = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert set(page["properties"]) == {"items", "next"}, (path, page)
        assert "422" in operation["responses"], path
    limit = next(
        p for p in schema["paths"]["/v1/files"]["get"]["parameters"] if p["name"] == "limit"
    )
    assert limit["schema"]["maximum"] == 500 and limit["schema"]["default"] == 100
