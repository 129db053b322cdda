"""Opaque page cursors over (created_at, id): newest first, stable under concurrent inserts."""

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg


class InvalidCursor(ValueError):
    """A `before` value that no page of ours handed out."""


@dataclass(frozen=True)
class Cursor:
    created_at: datetime
    id: UUID

    def encode(self) -> str:
        raw = f"{self.created_at.isoformat()}|{self.id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, value: str) -> "Cursor":
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
            created_at, _, row_id = raw.partition("|")
            parsed = datetime.fromisoformat(created_at)
            if parsed.tzinfo is None:
                raise ValueError("naive time")
            # in UTC here: a made-up time at the edge of the calendar overflows now, not in the
            # database driver
            return cls(parsed.astimezone(UTC), UUID(row_id))
        except (ValueError, OverflowError) as exc:
            raise InvalidCursor(
                f"Invalid cursor {value!r}: pass the `next` value of the previous page as `before`."
            ) from exc


# Sorts above every row: a first page is read as `(created_at, id) < FIRST_PAGE`, so every page
# is one index range, and the same statement (a plan cached for `$2 IS NULL OR …` could only
# filter, reading every row above a later page before it)
FIRST_PAGE = Cursor(datetime.max.replace(tzinfo=UTC), UUID(int=(1 << 128) - 1))


def start_of(before: Cursor | None) -> Cursor:
    """Where a page starts: below `before`, or (no cursor) above every row."""
    return before or FIRST_PAGE


@dataclass(frozen=True)
class Page:
    """One page of rows, newest first, and the cursor of the next (None on the last page)."""

    items: list[Any]
    next: str | None


def page_of(
    rows: list[Any], limit: int, id_column: str, *, time_column: str = "created_at"
) -> Page:
    """Rows fetched with limit + 1: the extra row only says whether another page exists."""
    items = rows[:limit]
    if len(rows) <= limit or not items:
        return Page(items=items, next=None)
    last = items[-1]
    return Page(items=items, next=Cursor(last[time_column], last[id_column]).encode())


async def fetch_page(
    conn: asyncpg.Connection | asyncpg.Pool,
    sql: str,
    *,
    user_id: UUID,
    limit: int,
    before: Cursor | None,
    args: Sequence[Any] = (),
    id_column: str = "id",
    time_column: str = "created_at",
) -> Page:
    """One page of `sql`, which takes $1 the user, ($2, $3) the start, $4 the limit (one more
    row than the page, to know whether another follows), then `args`."""
    start = start_of(before)
    rows = await conn.fetch(sql, user_id, start.created_at, start.id, limit + 1, *args)
    return page_of(list(rows), limit, id_column, time_column=time_column)
