"""Search over a user's chunks: BM25 over PostgreSQL full text and pgvector HNSW. With words only,
hits rank by BM25; when a real embedding model's vectors vote, each candidate of either list gets
a convex combination of its BM25 score (divided by the best one) and its cosine similarity.

Score fusion rather than reciprocal rank fusion (RRF): on SciFact with all-MiniLM-L6-v2, RRF gave
nDCG@10 0.708 and the convex combination 0.73-0.74 over a wide range of weights (vector share 0.5
to 0.8), as Bruch et al. (2023, "An analysis of fusion functions for hybrid retrieval") found on
BEIR: ranks throw away how much better the best hit is.

BM25 reads only the index of postings, chunk_terms (one row per lexeme of a chunk, with its
frequency there and the chunk's length; migration 0006): a query's document frequencies are
counts of its lexemes' rows, and every chunk holding one of them is scored from those rows
alone, never from its text or tsvector. The ranking is full BM25; a SciFact claim over 5,000
chunks scores ~3,000 postings (6,400 at the 95th percentile) in 2-5 ms.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from uuid import UUID

import asyncpg
import numpy as np

from services.context.vector_candidates import CANDIDATES, nearest_chunks

RRF_K = 60  # words only: a hit's score is 1 / (RRF_K + its BM25 rank), as RRF would give it
BM25_K1, BM25_B = 0.9, 0.4  # the values that score best on BEIR-style collections
BACKGROUND_CHUNKS = 1000  # see TermStats.weights

Conn = asyncpg.Connection | asyncpg.Pool


@dataclass(frozen=True)
class TermStats:
    """The query's lexemes with their IDF over the searched chunks."""

    terms: list[str]  # rarest first
    idf: list[float]
    df: list[int]
    chunks: int
    avgdl: float

    @cached_property
    def weights(self) -> list[float]:
        """Each term's weight in `relevance`: its IDF as if the searched chunks sat among
        BACKGROUND_CHUNKS more that lack it, so that in a small collection a word found in one
        of two chunks does not count as common (ranking keeps the true IDF)."""
        n = self.chunks + BACKGROUND_CHUNKS
        return [math.log(1 + (n - df + 0.5) / (df + 0.5)) for df in self.df]

    @cached_property
    def total_weight(self) -> float:
        return sum(self.weights)


# $1 user, $2 query text, $3 file ids (NULL: all the user's files)
_TERM_STATS = """
    WITH terms AS (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', $2))),
    corpus AS (SELECT count(*) AS n, greatest(avg(term_count), 1)::float8 AS avgdl
               FROM file_chunks WHERE user_id = $1 AND searchable
                 AND ($3::uuid[] IS NULL OR file_id = ANY($3)))
    SELECT terms.term, corpus.n, corpus.avgdl,
           (SELECT count(*) FROM chunk_terms p
            WHERE p.user_id = $1 AND p.lexeme = terms.term
              AND ($3::uuid[] IS NULL OR p.file_id = ANY($3))) AS df
    FROM terms, corpus
"""

# a chunk's BM25 over the query's terms ($4, idf $5) from its postings p, $2 the mean chunk
# length; in float8 throughout (a numeric constant made every posting's sum numeric arithmetic)
_SCORE = f"""sum(s.idf * p.tf * {BM25_K1 + 1}::float8 / (p.tf + {BM25_K1}::float8
               * ({1 - BM25_B}::float8 + {BM25_B}::float8 * p.term_count / $2::float8)))"""

# the $6 best chunks by BM25, of the user's files $3 (NULL: all of them)
_BM25 = f"""
    SELECT p.chunk_id, {_SCORE} AS bm25
    FROM unnest($4::text[], $5::float8[]) AS s(term, idf)
    JOIN chunk_terms p ON p.user_id = $1 AND p.lexeme = s.term
    WHERE ($3::uuid[] IS NULL OR p.file_id = ANY($3))
    GROUP BY p.chunk_id
    ORDER BY bm25 DESC, p.chunk_id
    LIMIT $6
"""

# the same for the chunks $7 alone: a primary-key lookup for each term and chunk (OFFSET 0 keeps
# the planner from reading every posting of the query's terms and filtering them, thousands for a
# common term, as it did)
_BM25_AMONG = f"""
    SELECT c.id AS chunk_id, {_SCORE} AS bm25
    FROM unnest($4::text[], $5::float8[]) AS s(term, idf)
    CROSS JOIN unnest($7::uuid[]) AS c(id)
    CROSS JOIN LATERAL (SELECT tf, term_count FROM chunk_terms
                        WHERE user_id = $1 AND lexeme = s.term AND chunk_id = c.id
                          AND ($3::uuid[] IS NULL OR file_id = ANY($3)) OFFSET 0) AS p
    GROUP BY c.id
    ORDER BY bm25 DESC, c.id
    LIMIT $6
"""

# the cosine similarity of chunks that only full text found
_SIMILARITY = """
    SELECT id, 1 - (embedding <=> $3) AS similarity FROM file_chunks
    WHERE user_id = $1 AND id = ANY($2::uuid[]) AND embedding IS NOT NULL AND searchable
"""

# the hits themselves, with the share of the query's term weight their text holds ($3, $4) and, when
# a vector is given ($5), their cosine similarity
_HITS = """
    SELECT c.id AS chunk_id, c.file_id, f.filename, c.chunk_index, c.chunk_type, c.title,
           c.char_start, c.char_end, c.line_start, c.line_end, c.text, c.summary,
           c.chunk_essence, c.decision_arc_summary, c.salience_score,
           (SELECT coalesce(sum(s.idf), 0) FROM unnest($3::text[], $4::float8[]) AS s(term, idf)
            WHERE c.search_vector @@ quote_literal(s.term)::tsquery) AS matched_idf,
           CASE WHEN $5::vector IS NULL THEN NULL
                ELSE 1 - (c.embedding <=> $5::vector) END AS similarity
    FROM file_chunks c JOIN files f ON f.id = c.file_id
    WHERE c.id = ANY($2::uuid[]) AND c.user_id = $1 AND c.searchable
"""


async def term_stats(
    conn: Conn, *, user_id: UUID, text: str, file_ids: Sequence[UUID] | None = None
) -> TermStats:
    """IDF of each of the query's lexemes (BM25's: ln(1 + (N - df + 0.5) / (df + 0.5)))."""
    rows = await conn.fetch(_TERM_STATS, user_id, text, _ids(file_ids))
    n = rows[0]["n"] if rows else 0
    stats = sorted(
        ((r["term"], math.log(1 + (n - r["df"] + 0.5) / (r["df"] + 0.5)), r["df"]) for r in rows),
        key=lambda s: (-s[1], s[0]),
    )
    return TermStats(
        terms=[s[0] for s in stats],
        idf=[s[1] for s in stats],
        df=[s[2] for s in stats],
        chunks=n,
        avgdl=rows[0]["avgdl"] if rows else 1.0,
    )


async def bm25_ranking(
    conn: Conn,
    *,
    user_id: UUID,
    stats: TermStats,
    file_ids: Sequence[UUID] | None = None,
    limit: int = CANDIDATES,
    among: Sequence[UUID] | None = None,
) -> list[tuple[UUID, float]]:
    """The `limit` best chunks by BM25 (only those `among`, when given), best first (ties: by
    id)."""
    if not stats.terms:
        return []
    args = [user_id, stats.avgdl, _ids(file_ids), stats.terms, stats.idf, limit]
    rows = (
        await conn.fetch(_BM25, *args)
        if among is None
        else await conn.fetch(_BM25_AMONG, *args, list(among))
    )
    return [(row["chunk_id"], row["bm25"]) for row in rows]


async def hybrid_search(
    conn: Conn,
    *,
    user_id: UUID,
    text: str,
    vector: Sequence[float] | None,
    limit: int = 10,
    file_ids: Sequence[UUID] | None = None,
    vector_weight: float = 1.0,
    stats: TermStats | None = None,
) -> list[dict[str, Any]]:
    """The best chunks for a query, each with its fused `score`, its file's name, and its
    `relevance` in 0-1 (see `relevance`).

    `vector_weight` is how much cosine similarity counts against BM25 (1.0: equally); at 0 (or
    without a vector) the vector index is not searched at all. `stats`: the query's term
    statistics over the same files, when the caller has them already.
    """
    use_vector = vector is not None and vector_weight > 0
    if stats is None:
        stats = await term_stats(conn, user_id=user_id, text=text, file_ids=file_ids)
    query_vector = np.asarray(vector, dtype=np.float32) if use_vector else None
    if query_vector is None:
        # the order is BM25's: only the top `limit` can matter
        lexical = await bm25_ranking(
            conn, user_id=user_id, stats=stats, file_ids=file_ids, limit=limit
        )
        fused = {chunk_id: 1.0 / (RRF_K + rank) for rank, (chunk_id, _) in enumerate(lexical, 1)}
    else:
        fused = await _fused_scores(
            conn, user_id, stats, file_ids, query_vector, vector_weight / (1.0 + vector_weight)
        )
    best = sorted(fused.items(), key=lambda s: (-s[1], s[0]))[:limit]
    if not best:
        return []
    rows = await conn.fetch(
        _HITS, user_id, [i for i, _ in best], stats.terms, stats.weights, query_vector
    )
    by_id = {row["chunk_id"]: row for row in rows}
    hits = []
    for chunk_id, score in best:
        if chunk_id in by_id:
            hit = dict(by_id[chunk_id])
            hit["score"] = score
            hit["relevance"] = relevance(hit["matched_idf"], stats.total_weight, hit["similarity"])
            hits.append(hit)
    return hits


async def _fused_scores(
    conn: Conn,
    user_id: UUID,
    stats: TermStats,
    file_ids: Sequence[UUID] | None,
    vector: np.ndarray,
    vector_share: float,
) -> dict[UUID, float]:
    """(1 - share) × BM25 / best BM25 + share × cosine similarity, for the best CANDIDATES of
    each list; each candidate is scored by both (a chunk full text never found scores 0 there)."""
    lexical = dict(await bm25_ranking(conn, user_id=user_id, stats=stats, file_ids=file_ids))
    semantic = {
        row["id"]: row["similarity"]
        for row in await nearest_chunks(
            conn, user_id=user_id, vector=vector, file_ids=file_ids, searched=stats.chunks
        )
    }
    if only_semantic := [i for i in semantic if i not in lexical]:
        lexical |= dict(
            await bm25_ranking(
                conn, user_id=user_id, stats=stats, limit=len(only_semantic), among=only_semantic
            )
        )
    if only_lexical := [i for i in lexical if i not in semantic]:
        rows = await conn.fetch(_SIMILARITY, user_id, only_lexical, vector)
        semantic |= {row["id"]: row["similarity"] for row in rows}
    best_bm25 = max(lexical.values(), default=0.0) or 1.0
    return {
        chunk_id: (1 - vector_share) * lexical.get(chunk_id, 0.0) / best_bm25
        + vector_share * semantic.get(chunk_id, 0.0)
        for chunk_id in lexical.keys() | semantic.keys()
    }


def relevance(matched: float, total: float, similarity: float | None) -> float:
    """How well a chunk matches, in 0-1: the IDF-weighted share of the question's terms it
    contains (TermStats.weights), or its cosine similarity to the question when vectors vote
    and that is higher."""
    share = matched / total if total > 0 else 0.0
    return max(share, similarity or 0.0)


def _ids(file_ids: Sequence[UUID] | None) -> list[UUID] | None:
    return list(file_ids) if file_ids is not None else None
