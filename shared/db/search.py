"""Hybrid search over a user's chunks: PostgreSQL full text and pgvector HNSW, fused by
reciprocal rank fusion (RRF)."""

import re
from collections.abc import Sequence
from uuid import UUID

import asyncpg
import numpy as np

RRF_K = 60  # the usual constant: a hit's weight is 1 / (RRF_K + its rank in each list)
CANDIDATES = 50  # hits taken from each list before fusing
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def or_query(text: str) -> str:
    """A to_tsquery expression matching any of the words (a claim rarely has every word)."""
    return " | ".join(dict.fromkeys(word.lower() for word in _WORD.findall(text)))


async def hybrid_search(
    conn: asyncpg.Connection | asyncpg.Pool,
    *,
    user_id: UUID,
    text: str,
    vector: Sequence[float],
    limit: int = 10,
    file_ids: Sequence[UUID] | None = None,
) -> list[asyncpg.Record]:
    """The best chunks for a query, each with its fused score and its file's name."""
    return await conn.fetch(
        """
        WITH query AS (SELECT to_tsquery('english', $2) AS q),
        lexical AS (
            SELECT c.id, row_number() OVER (ORDER BY ts_rank_cd(c.search_vector, query.q, 1) DESC)
                   AS rank
            FROM file_chunks c, query
            WHERE c.user_id = $1 AND c.search_vector @@ query.q
              AND ($5::uuid[] IS NULL OR c.file_id = ANY($5))
            ORDER BY ts_rank_cd(c.search_vector, query.q, 1) DESC
            LIMIT $4),
        semantic AS (
            SELECT c.id, row_number() OVER (ORDER BY c.embedding <=> $3) AS rank
            FROM file_chunks c
            WHERE c.user_id = $1 AND c.embedding IS NOT NULL
              AND ($5::uuid[] IS NULL OR c.file_id = ANY($5))
            ORDER BY c.embedding <=> $3
            LIMIT $4),
        fused AS (
            SELECT id, sum(1.0 / ($6 + rank)) AS score
            FROM (SELECT * FROM lexical UNION ALL SELECT * FROM semantic) ranked
            GROUP BY id)
        SELECT c.id AS chunk_id, c.file_id, f.filename, c.chunk_index, c.chunk_type, c.title,
               c.char_start, c.char_end, c.line_start, c.line_end, c.text, c.summary,
               c.chunk_essence, c.decision_arc_summary, c.salience_score, fused.score
        FROM fused
        JOIN file_chunks c ON c.id = fused.id
        JOIN files f ON f.id = c.file_id
        ORDER BY fused.score DESC, c.id
        LIMIT $7
        """,
        user_id,
        or_query(text) or "''",
        np.asarray(vector, dtype=np.float32),
        CANDIDATES,
        list(file_ids) if file_ids is not None else None,
        RRF_K,
        limit,
    )
