"""A chunker redelivery that cuts a text differently must not keep the old cut or vector."""

import hashlib

import asyncpg

from shared.db import chunks, files, users
from shared.db.chunks import NewChunk
from shared.domain import ArtisanCut


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
    user, _ = await users.create_user(db, name="resplit")
    async with db.acquire() as conn:
        row, _ = await files.insert_file(
            conn,
            user_id=user.id,
            filename="plan.md",
            media_type="text/markdown",
            content_hash=hashlib.sha256(b"resplit").hexdigest(),
            data=b"We chose A. Then we chose B.",
        )
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
