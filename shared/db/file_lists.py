"""The files table read as lists: a user's files a page at a time (GET /v1/files), and the
files a progress stream follows. Every query is scoped by user."""

from collections.abc import Collection
from uuid import UUID

import asyncpg

from shared.db.cursors import Cursor, Page, fetch_page
from shared.db.files import FILE_COLUMNS, Conn, in_transaction


async def list_files(
    conn: Conn,
    *,
    user_id: UUID,
    limit: int = 100,
    before: Cursor | None = None,
    status: str | None = None,
) -> Page:
    """The user's files (with `status` only), newest first; `before` continues after a previous
    page. A status is its own statement, not `$n IS NULL OR status = $n`: a plan cached for
    that could not use files_user_status_listed_idx.

    Read with sorting off (for the rest of a caller's transaction, if in one): with no
    statistics for files.user_id (migration 0018) the planner takes each user for 0.5% of the
    table, so while the table is under ~40,000 files it would rather sort all of a user's files
    than read a page off files_user_listed_idx: 13 ms instead of 0.1 ms at 20,000 files."""
    only_status = "AND status = $5" if status else ""
    # status leads the order too (a constant, so the same rows in the same order): only
    # files_user_status_listed_idx gives that order, so the planner cannot read the user's whole
    # list and filter it, as it did at times with 5,000 newer files of another status
    by_status = "status, " if status else ""
    async with in_transaction(conn) as tx:
        await tx.execute("SET LOCAL enable_sort = off")
        return await fetch_page(
            tx,
            f"""SELECT {FILE_COLUMNS} FROM files
                WHERE user_id = $1 AND (uploaded_at, id) < ($2, $3) {only_status}
                ORDER BY {by_status}uploaded_at DESC, id DESC
                LIMIT $4""",
            user_id=user_id,
            limit=limit,
            before=before,
            args=[status] if status else [],
            time_column="uploaded_at",
        )


async def followed_files(
    conn: Conn, *, user_id: UUID, ids: Collection[UUID]
) -> list[asyncpg.Record]:
    """The files a progress stream follows: those processing, and `ids` (whatever they are now;
    gone ones are absent), oldest first."""
    return await conn.fetch(
        f"""SELECT {FILE_COLUMNS} FROM files
            WHERE user_id = $1 AND (status = 'processing' OR id = ANY($2::uuid[]))
            ORDER BY uploaded_at, id""",
        user_id,
        list(ids),
    )
