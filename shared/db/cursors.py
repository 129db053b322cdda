"""Opaque page cursors over (created_at, id): newest first, stable under concurrent inserts."""

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID


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
            return cls(parsed, UUID(row_id))
        except ValueError as exc:
            raise InvalidCursor(
                f"Invalid cursor {value!r}: pass the `next` value of the previous page as `before`."
            ) from exc


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
