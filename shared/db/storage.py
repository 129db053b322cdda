"""What each user stores: the bytes of their uploaded files (the sum of the files table's `size`,
kept in users.stored_bytes by migration 0017's trigger), for the gateway's storage quota."""

from uuid import UUID

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool


async def stored_bytes(
    conn: Conn, *, user_id: UUID, content_hashes: list[str]
) -> tuple[int, set[str]]:
    """The bytes of every file the user stores, and which of `content_hashes` they already have
    (an upload of those stores nothing new)."""
    row = await conn.fetchrow(
        """SELECT u.stored_bytes AS used,
                  array(SELECT content_hash FROM files
                        WHERE user_id = $1 AND content_hash = ANY($2::text[])) AS present
           FROM users u WHERE u.id = $1""",
        user_id,
        content_hashes,
    )
    return row["used"], set(row["present"])
