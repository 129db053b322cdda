"""Search over a user's chunks: BM25 over PostgreSQL full text, pgvector HNSW, and both fused by
reciprocal rank fusion (RRF).

The CTEs are MATERIALIZED so the per-term statistics are computed once per query, not per row.
"""

import re
from collections.abc import Sequence
from uuid import UUID

import asyncpg
import numpy as np

RRF_K = 60  # the usual constant: a hit's weight is 1 / (RRF_K + its rank in each list)
CANDIDATES = 50  # hits taken from each list before fusing
BM25_K1, BM25_B = 0.9, 0.4  # the values that score best on BEIR-style collections
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

Conn = asyncpg.Connection | asyncpg.Pool


def or_query(text: str) -> str:
    """A to_tsquery expression matching any of the words (a claim rarely has every word)."""
    return " | ".join(dict.fromkeys(word.lower() for word in _WORD.findall(text)))


# BM25 over the tsvector: document frequency per query term from the GIN index, term frequency
# from the lexeme's positions, document length from term_count
# ($1 user, $2 or-query, $3 files, $6 the query's text; $4 vector and $5 limit below)
_LEXICAL = f"""
    query AS MATERIALIZED (SELECT to_tsquery('english', $2) AS q),
    terms AS MATERIALIZED (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', $6))),
    scope AS MATERIALIZED (SELECT c.id, c.search_vector, c.term_count FROM file_chunks c
              WHERE c.user_id = $1 AND ($3::uuid[] IS NULL OR c.file_id = ANY($3))),
    corpus AS MATERIALIZED (
        SELECT count(*)::float8 AS n, greatest(avg(term_count), 1)::float8 AS avgdl FROM scope),
    term_stats AS MATERIALIZED (
        SELECT terms.term, ln(1 + (corpus.n - df.n + 0.5) / (df.n + 0.5)) AS idf
        FROM terms, corpus,
             LATERAL (SELECT count(*)::float8 AS n FROM scope
                      WHERE scope.search_vector @@ quote_literal(terms.term)::tsquery) df),
    lexical AS (
        SELECT scope.id, row_number() OVER (ORDER BY sum(
                   ts.idf * tf.n * ({BM25_K1} + 1) / (tf.n + {BM25_K1}
                   * (1 - {BM25_B} + {BM25_B} * scope.term_count / corpus.avgdl))) DESC) AS rank
        FROM scope, query, corpus,
             LATERAL unnest(scope.search_vector) AS lexeme(term, positions, weights),
             LATERAL (SELECT coalesce(array_length(lexeme.positions, 1), 1)::float8 AS n) tf,
             term_stats ts
        WHERE scope.search_vector @@ query.q AND ts.term = lexeme.term
        GROUP BY scope.id
        ORDER BY rank
        LIMIT {CANDIDATES})
"""

_SEMANTIC = f"""
    semantic AS (
        SELECT c.id, row_number() OVER (ORDER BY c.embedding <=> $4) AS rank
        FROM file_chunks c
        WHERE c.user_id = $1 AND c.embedding IS NOT NULL
          AND ($3::uuid[] IS NULL OR c.file_id = ANY($3))
        ORDER BY c.embedding <=> $4
        LIMIT {CANDIDATES})
"""

_HITS = f"""
    SELECT c.id AS chunk_id, c.file_id, f.filename, c.chunk_index, c.chunk_type, c.title,
           c.char_start, c.char_end, c.line_start, c.line_end, c.text, c.summary,
           c.chunk_essence, c.decision_arc_summary, c.salience_score, fused.score
    FROM (SELECT id, sum(weight / ({RRF_K} + rank)) AS score
          FROM (SELECT id, rank, 1.0 AS weight FROM lexical
                UNION ALL SELECT id, rank, $7::float8 FROM semantic) ranked
          GROUP BY id) fused
    JOIN file_chunks c ON c.id = fused.id
    JOIN files f ON f.id = c.file_id
    ORDER BY fused.score DESC, c.id
    LIMIT $5
"""


async def hybrid_search(
    conn: Conn,
    *,
    user_id: UUID,
    text: str,
    vector: Sequence[float],
    limit: int = 10,
    file_ids: Sequence[UUID] | None = None,
    vector_weight: float = 1.0,
) -> list[asyncpg.Record]:
    """The best chunks for a query, each with its fused score and its file's name.

    `vector_weight` scales the vector list's votes against full text's (1.0: equal).
    """
    return await conn.fetch(
        f"WITH {_LEXICAL}, {_SEMANTIC} {_HITS}",
        user_id,
        or_query(text) or "''",
        list(file_ids) if file_ids is not None else None,
        np.asarray(vector, dtype=np.float32),
        limit,
        text,
        vector_weight,
    )
