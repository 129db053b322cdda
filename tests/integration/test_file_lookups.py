"""A lookup of one file reads one index entry, also for a user who joined since the planner's
statistics were taken and has thousands of files (migration 0018): the planner once took such a
user for one with no files and read all of their files for each lookup."""

import json
from typing import Any

import asyncpg

from services.gateway.dispatch import outbox
from shared.db import files, users
from tests.helpers import rolled_back, rows_read

ADD_FILES = """
    INSERT INTO files (id, user_id, filename, media_type, size, content_hash, status,
                       processing_stage, progress)
    SELECT gen_random_uuid(), $1::uuid, 'f' || i || '.txt', 'text/plain', 10, $1::text || i,
           'processing', 'chunking', 50
    FROM generate_series(1, $2) AS i"""
# what every pipeline step asks first (files.is_current_attempt)
IS_CURRENT = """
    SELECT true FROM files
    WHERE id = $1 AND attempt = 1 AND status = 'processing' AND user_id = $2"""


async def test_a_new_users_file_is_found_by_its_key_however_many_files_they_have(
    db: asyncpg.Pool,
) -> None:
    # everything here exists only in this transaction, rolled back at the end
    async with rolled_back(db) as conn:
        known, _ = await users.create_user(conn, name="known")
        await conn.execute(ADD_FILES, known.id, 300)
        await conn.execute("ANALYZE files")  # the statistics know only `known`'s files
        new, _ = await users.create_user(conn, name="new")
        await conn.execute(ADD_FILES, new.id, 3000)
        file_id = await conn.fetchval("SELECT id FROM files WHERE user_id = $1", new.id)
        assert await files.is_current_attempt(conn, user_id=new.id, file_id=file_id, attempt=1)
        # the first runs of a prepared statement are planned for their values, the later
        # ones may take a generic plan: both are looked at
        explained = [
            await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {IS_CURRENT}", file_id, new.id)
            for _ in range(8)
        ]
    for plan in explained:
        assert rows_read(json.loads(plan)[0]["Plan"]) <= 1, plan


def _rows_read_from(plan: dict[str, Any], relation: str) -> float:
    """Rows the plan's scans of `relation` produced or filtered out, over all their loops."""
    own = rows_read({**plan, "Plans": []}) if plan.get("Relation Name") == relation else 0
    return own + sum(_rows_read_from(child, relation) for child in plan.get("Plans", []))


async def test_the_dispatcher_probes_the_text_of_each_queued_file_only(db: asyncpg.Pool) -> None:
    """Whether a queued file's text is stored (read at upload: it skips the extractor) is one
    primary-key probe per file, not a scan of everyone's file contents."""
    async with rolled_back(db) as conn:
        user, _ = await users.create_user(conn, name="dispatch-probe")
        await conn.execute(ADD_FILES, user.id, 2000)
        await conn.execute(
            "UPDATE files SET status = 'ready', processing_stage = 'ready' WHERE user_id = $1",
            user.id,
        )  # finished: they do not count against the user's files in flight
        await conn.execute(
            "INSERT INTO file_contents (file_id, data, content_hash, text)"
            " SELECT id, '\\x00'::bytea, content_hash, 'words' FROM files WHERE user_id = $1",
            user.id,
        )
        note, _ = await files.insert_file(
            conn, user_id=user.id, filename="note.md", media_type="text/markdown",
            content_hash="note", data=b"words", text="words\n",
        )  # fmt: skip
        scan, _ = await files.insert_file(
            conn, user_id=user.id, filename="scan.pdf", media_type="application/pdf",
            content_hash="scan", data=b"%PDF",
        )  # fmt: skip
        args = (10, 200, 0, 10)  # share, limit, extra share when alone, most when alone
        queued = await outbox.next_files(conn, per_user=10, limit=200, alone_extra=0, alone_max=10)
        plan = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {outbox._NEXT_FILES}", *args)
    extracted = {row["id"]: row["extracted"] for row in queued}
    assert extracted[note["id"]] is True and extracted[scan["id"]] is False
    assert _rows_read_from(json.loads(plan)[0]["Plan"], "file_contents") <= len(queued), plan


async def test_dispatched_files_are_moved_on_by_their_keys(db: asyncpg.Pool) -> None:
    """A round marks its few dispatched files through the primary key, not by walking every
    queued file (which a planner that underestimates the queue once did, each round)."""
    fetched = "SELECT idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = 'files'"
    async with rolled_back(db) as conn:
        user, _ = await users.create_user(conn, name="dispatch-keys")
        await conn.execute(ADD_FILES, user.id, 3000)
        await conn.execute(
            "UPDATE files SET processing_stage = 'queued' WHERE user_id = $1", user.id
        )
        first = await conn.fetch(
            "SELECT id, attempt FROM files WHERE user_id = $1 ORDER BY id LIMIT 4", user.id
        )
        before = await conn.fetchval(fetched)
        moved = await outbox.files_dispatched(
            conn,
            ids=[r["id"] for r in first],
            attempts=[r["attempt"] for r in first],
            extracted=[True, False, False, False],
        )
        read = await conn.fetchval(fetched) - before
    assert sorted(r["processing_stage"] for r in moved) == [
        "classifying", "extracting", "extracting", "extracting"
    ]  # fmt: skip
    assert read <= len(first), read
