"""What each user stores: the bytes of their uploaded files (the files table's `size`), for the
gateway's storage quota."""

from uuid import UUID

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool


async def stored_bytes(
    conn: Conn, *, user_id: UUID, content_hashes: list[str]
) -> tuple[int, set[str]]:
    """The bytes of every file the user stores, and which of `content_hashes` they already have
    (an upload of those stores nothing new)."""
    row = await conn.fetchrow(
        """SELECT coalesce(sum(size), 0)::bigint AS used,
                  coalesce(array_agg(content_hash) FILTER (WHERE content_hash = ANY($2::text[])),
                           '{}') AS present
           FROM files WHERE user_id = $1""",
        user_id,
        content_hashes,
    )
    return row["used"], set(row["present"])
