"""What each user stores: the bytes of their uploaded files (the sum of the files table's `size`,
kept in users.stored_bytes by migration 0017's trigger), for the gateway's storage quota."""

from uuid import UUID

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool


# Each hash is looked up on its own, in the (user_id, content_hash) unique index: written as one
# `content_hash = ANY(...)` filter, the planner, trusting statistics taken while the user had
# few files, read all of the user's files instead (1,300 rows per upload among 1,000 files).
STORED_BYTES = """
    SELECT u.stored_bytes AS used,
           array(SELECT h.content_hash FROM unnest($2::text[]) AS h(content_hash)
                 WHERE (SELECT true FROM files f
                        WHERE f.user_id = $1 AND f.content_hash = h.content_hash)) AS present
    FROM users u WHERE u.id = $1"""


async def stored_bytes(
    conn: Conn, *, user_id: UUID, content_hashes: list[str]
) -> tuple[int, set[str]]:
    """The bytes of every file the user stores, and which of `content_hashes` they already have
    (an upload of those stores nothing new)."""
    row = await conn.fetchrow(STORED_BYTES, user_id, content_hashes)
    return row["used"], set(row["present"])
