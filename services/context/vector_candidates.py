"""The vector half of file search: a user's chunks nearest a question, through pgvector's HNSW
index when it can find them, by an exact scan of the user's own chunks when it cannot.

pgvector 0.6 (the one pgserver ships; iterative index scans came in 0.8) walks the graph for the
hnsw.ef_search nearest vectors of every user and applies WHERE afterwards: at the default width,
40, a search for CANDIDATES (50) chunks returned at most 40, and a user holding 2% of the chunks
got about one. So the width is set from the user's share of the table, enough for CANDIDATES of
theirs to be expected among the nearest; a user whose share needs more than MAX_WIDTH (or whose
search still came back short) has few chunks, and those are compared exactly.
"""

import math
from collections.abc import Sequence
from uuid import UUID

import asyncpg
import numpy as np

CANDIDATES = 50  # chunks taken from the vector list before fusing
DEFAULT_WIDTH = 40  # pgvector's hnsw.ef_search
MAX_WIDTH = 1000  # pgvector's largest hnsw.ef_search
HEADROOM = 2.0  # a user's chunks do not sit evenly among everyone's near a question

Conn = asyncpg.Connection | asyncpg.Pool

# $1 user, $2 file ids (NULL: all the user's files), $3 the question's vector, $4 the search
# width: set_config(..., true) lasts as SET LOCAL does, for this statement alone outside a
# transaction, and as a one-time filter (it reads no column) it runs before the index scan
_NEAREST = f"""
    SELECT c.id, 1 - (c.embedding <=> $3) AS similarity FROM file_chunks c
    WHERE c.user_id = $1 AND c.embedding IS NOT NULL AND c.searchable
      AND ($2::uuid[] IS NULL OR c.file_id = ANY($2))
      AND (SELECT set_config('hnsw.ef_search', $4, true)) IS NOT NULL
    ORDER BY {{order}}
    LIMIT {CANDIDATES}
"""
THROUGH_INDEX = _NEAREST.format(order="c.embedding <=> $3")
# `+ 0` keeps the planner off the index: every one of the user's chunks is compared
EXACT = _NEAREST.format(order="(c.embedding <=> $3) + 0")

_SEARCHED = """
    SELECT count(*) FROM file_chunks
    WHERE user_id = $1 AND searchable AND ($2::uuid[] IS NULL OR file_id = ANY($2))
"""


def search_width(searched: int, table_rows: float) -> int | None:
    """hnsw.ef_search for CANDIDATES of `searched` chunks among the table's; None when even
    MAX_WIDTH would be too few (the chunks are then compared exactly)."""
    share = searched / max(table_rows, searched, 1)
    width = math.ceil(HEADROOM * CANDIDATES / share) if share > 0 else MAX_WIDTH + 1
    return max(DEFAULT_WIDTH, width) if width <= MAX_WIDTH else None


async def nearest_chunks(
    conn: Conn,
    *,
    user_id: UUID,
    vector: np.ndarray,
    file_ids: Sequence[UUID] | None = None,
    searched: int | None = None,
) -> list[asyncpg.Record]:
    """The CANDIDATES chunks nearest the vector (cosine), with their `similarity`, nearest first.
    `searched`: how many chunks the user's search covers, when the caller has counted them."""
    ids = list(file_ids) if file_ids is not None else None
    if searched is None:
        searched = await conn.fetchval(_SEARCHED, user_id, ids)
    if not searched:
        return []
    table_rows = await conn.fetchval(
        "SELECT reltuples FROM pg_class WHERE oid = 'file_chunks'::regclass"
    )
    width = search_width(searched, table_rows)
    if width is not None:
        rows = await conn.fetch(THROUGH_INDEX, user_id, ids, vector, str(width))
        if len(rows) >= min(CANDIDATES, searched):
            return rows
    return await conn.fetch(EXACT, user_id, ids, vector, str(DEFAULT_WIDTH))
