"""Pages of a list: `limit` and an opaque `before` cursor in, `items` and `next` out.

Every list of the API is read a page at a time, newest first (shared/db/cursors.py): a page
never holds more than its maximum, and `next` (null on the last page) is passed back as
`before`. The cursor only says where the previous page stopped; whose rows are read is the
authenticated user's, always, so a cursor from elsewhere can only move within your own list.
"""

from typing import Annotated

from fastapi import Depends, HTTPException, Query

from services.gateway.schemas import ErrorResponse
from shared.db.cursors import Cursor, InvalidCursor

MAX_CURSOR_CHARS = 200
DEFAULT_LIMIT = 100
MAX_LIMIT = 500

Limit = Annotated[
    int, Query(ge=1, le=MAX_LIMIT, description=f"items per page, at most {MAX_LIMIT}")
]


async def parse_before(
    before: Annotated[
        str | None,
        Query(
            max_length=MAX_CURSOR_CHARS,
            description="the `next` of the previous page; leave it out for the first page",
        ),
    ] = None,
) -> Cursor | None:
    try:
        return Cursor.decode(before) if before else None
    except InvalidCursor as exc:
        raise HTTPException(422, str(exc)) from None


Before = Annotated[Cursor | None, Depends(parse_before)]
INVALID_PAGE = {
    422: {
        "model": ErrorResponse,
        "description": "a limit out of bounds, an unknown filter value, or a `before` that no"
        " page handed out",
    }
}
