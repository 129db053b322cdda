"""A chunker redelivery that cuts a text differently must not keep the old cut or vector."""

import hashlib
import uuid

import asyncpg

from shared.db import chunks, file_versions, files, users
from shared.db.chunks import NewChunk
from shared.domain import ArtisanCut
from tests.helpers import park_file


def _chunk(index: int, text: str, start: int) -> NewChunk:
    return NewChunk(
        index=index,
        chunk_type="strategic",
        title=f"part {index}",
        char_start=start,
        char_end=start + len(text),
        line_start=index + 1,
        line_end=index + 1,
        text=text,
    )


async def _stored_file(db: asyncpg.Pool) -> tuple[object, object]:
    """A file the running system leaves alone (parked: not queued for the dispatcher), so the
    test alone plays its chunker; a queued one raced the real pipeline."""
    user, _ = await users.create_user(db, name=f"resplit-{uuid.uuid4().hex[:8]}")
    row = await park_file(db, user.id, filename="plan.md", data=b"resplit")
    return user.id, row["id"]


async def _derive(db: asyncpg.Pool, chunk_id: object, text: str) -> None:
    cut = ArtisanCut(chunk_essence="e", decision_arc_summary="arc", salience_score=5)
    await chunks.store_artisan_cut(db, chunk_id=chunk_id, text=text, cut=cut)
    assert await chunks.store_embedding(db, chunk_id=chunk_id, text=text, embedding=[0.1] * 1024)


async def test_a_resplit_clears_the_cut_and_vector_of_changed_chunks_only(
    db: asyncpg.Pool,
) -> None:
    user_id, file_id = await _stored_file(db)
    first = [_chunk(0, "We chose A.", 0), _chunk(1, " Then we chose B.", 11)]
    async with db.acquire() as conn:
        ids = await chunks.save_chunks(conn, file_id=file_id, user_id=user_id, chunks=first)
    for chunk_id, chunk in zip(ids, first, strict=True):
        await _derive(db, chunk_id, chunk.text)

    second = [_chunk(0, "We chose A.", 0), _chunk(1, " Then we", 11), _chunk(2, " chose B.", 19)]
    async with db.acquire() as conn:
        await chunks.save_chunks(conn, file_id=file_id, user_id=user_id, chunks=second)

    rows = await chunks.list_chunks(db, user_id=user_id, file_id=file_id)
    kept, changed, new = rows
    assert (kept["decision_arc_summary"], kept["embedded"]) == ("arc", True)
    assert (changed["decision_arc_summary"], changed["embedded"]) == (None, False)
    assert (new["decision_arc_summary"], new["embedded"]) == (None, False)


async def test_a_cut_or_vector_of_text_the_chunk_no_longer_holds_is_not_stored(
    db: asyncpg.Pool,
) -> None:
    user_id, file_id = await _stored_file(db)
    async with db.acquire() as conn:
        [chunk_id] = await chunks.save_chunks(
            conn, file_id=file_id, user_id=user_id, chunks=[_chunk(0, "We chose A.", 0)]
        )
    cut = ArtisanCut(chunk_essence="e", decision_arc_summary="arc", salience_score=5)
    await chunks.store_artisan_cut(db, chunk_id=chunk_id, text="older text", cut=cut)
    stored = await chunks.store_embedding(
        db, chunk_id=chunk_id, text="older text", embedding=[0.1] * 1024
    )
    [row] = await chunks.list_chunks(db, user_id=user_id, file_id=file_id)
    assert not stored
    assert (row["decision_arc_summary"], row["embedded"]) == (None, False)


async def test_a_chunk_is_found_only_under_its_own_user_and_file(db: asyncpg.Pool) -> None:
    user_id, file_id = await _stored_file(db)
    other, _ = await users.create_user(db, name="someone-else")
    async with db.acquire() as conn:
        [chunk_id] = await chunks.save_chunks(
            conn, file_id=file_id, user_id=user_id, chunks=[_chunk(0, "We chose A.", 0)]
        )
    assert await chunks.get_chunk(db, user_id=user_id, file_id=file_id, chunk_id=chunk_id)
    assert not await chunks.get_chunk(db, user_id=other.id, file_id=file_id, chunk_id=chunk_id)


async def _ready_file_with_cuts(db: asyncpg.Pool, texts: list[str]) -> tuple[object, object, list]:
    user_id, file_id = await _stored_file(db)
    planned = [_chunk(i, text, 100 * i) for i, text in enumerate(texts)]
    async with db.acquire() as conn:
        ids = await chunks.save_chunks(conn, file_id=file_id, user_id=user_id, chunks=planned)
    for chunk_id, chunk in zip(ids, planned, strict=True):
        await _derive(db, chunk_id, chunk.text)
    await db.execute(
        "UPDATE files SET status = 'ready', processing_stage = 'ready', live_version = 1"
        " WHERE id = $1",
        file_id,
    )
    return user_id, file_id, ids


async def _parked_update(db: asyncpg.Pool, user_id: object, file_id: object) -> asyncpg.Record:
    """An update stored where no worker takes it (the test plays the chunker)."""
    async with db.acquire() as conn, conn.transaction():
        row = await file_versions.begin_update(
            conn, user_id=user_id, file_id=file_id, content_hash="v2", data=b"A. B2. C."
        )
        await conn.execute(
            "UPDATE files SET processing_stage = 'extracting' WHERE id = $1", file_id
        )
    return row


async def test_a_rerun_of_a_version_replaces_its_earlier_match_and_a_failure_undoes_it(
    db: asyncpg.Pool,
) -> None:
    user_id, file_id, (a, b, c) = await _ready_file_with_cuts(db, ["A.", " B.", " C."])
    row = await _parked_update(db, user_id, file_id)
    first_run = [_chunk(0, "A.", 0), _chunk(1, " B.", 2), _chunk(2, " C2.", 5)]
    second_run = [_chunk(0, "A.", 0), _chunk(1, " B2.", 2), _chunk(2, " C.", 6)]
    for planned, reused in ((first_run, {0: a, 1: b}), (second_run, {0: a, 2: c})):
        async with db.acquire() as conn, conn.transaction():
            ids = await chunks.save_version(
                conn, file_id=file_id, user_id=user_id, version=2, chunks=planned, reused=reused
            )
    assert ids[0] == a and ids[2] == c and ids[1] not in (a, b, c)
    rows = await db.fetch(
        "SELECT id, text, searchable, version_to, pending IS NOT NULL AS placed"
        " FROM file_chunks WHERE file_id = $1",
        file_id,
    )
    state = {r["text"]: (r["searchable"], r["version_to"], r["placed"]) for r in rows}
    # the first run's new chunk is gone; B is replaced by v2; A and C are shared, placed in v2
    assert state == {
        "A.": (True, None, True),
        " B.": (True, 2, False),
        " C.": (True, None, True),
        " B2.": (False, None, False),
    }

    failed = await files.mark_failed(db, file_id=file_id, attempt=row["attempt"], reason="boom.")
    assert (failed["status"], failed["version"], failed["live_version"]) == ("ready", 1, 1)
    assert "update to version 2 failed: boom." in failed["error_message"]
    assert failed["content_hash"] == hashlib.sha256(b"resplit").hexdigest()
    rows = await db.fetch(
        "SELECT text FROM file_chunks WHERE file_id = $1 AND searchable AND version_to IS NULL"
        " AND pending IS NULL ORDER BY chunk_index",
        file_id,
    )
    assert [r["text"] for r in rows] == ["A.", " B.", " C."]
    assert await db.fetchval("SELECT count(*) FROM file_chunks WHERE file_id = $1", file_id) == 3
    assert await db.fetchval(
        "SELECT array_agg(version) FROM file_contents WHERE file_id = $1", file_id
    ) == [1]
