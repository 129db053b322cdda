"""What each user stores: the bytes of their uploaded files (the sum of the files table's `size`,
kept in users.stored_bytes by migration 0017's trigger), for the gateway's storage quota."""

from uuid import UUID

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool

# the first key of the user's storage lock (the second is the user's); migrations lock a
# one-key id, which never meets a two-key one
_STORAGE_LOCK = 4_242_029


async def hold_storage(conn: asyncpg.Connection, *, user_id: UUID) -> None:
    """Wait for, then hold until the caller's transaction ends, the lock of the user's storage:
    their uploads are checked and stored one at a time, so two of them that each fit cannot
    pass together. An advisory lock, not the user's row: a worker changing a file's size holds
    the file's row and then updates the user's, and an update in place does the same."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext($2::text))", _STORAGE_LOCK, str(user_id)
    )


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
