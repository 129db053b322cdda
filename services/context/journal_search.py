"""P5's lexical side: BM25 over the journal's postings (journal_terms, migration 0008: one row
per lexeme of a turn's message, answer and arc), optionally within a window of time, never a
turn already loaded. Scored from the postings alone, as chunks are
(hybrid_search.py)."""

import math
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg

from services.context.hybrid_search import BM25_B, BM25_K1
from services.context.when import Window

Conn = asyncpg.Connection | asyncpg.Pool

# a term in more turns than this says little about any of them: it is counted no further and
# not scored (reading its postings is what would cost); the terms scored read at most
# POSTINGS_BUDGET postings in all, rarest first, so recall stays bounded at any journal size
COMMON_POSTINGS = 5_000
POSTINGS_BUDGET = 15_000

# $1 user, $2 question: each of its lexemes with its document frequency in the user's journal,
# counted up to $3
_TERM_STATS = """
    WITH terms AS (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', $2))),
    corpus AS (SELECT count(*) AS n, greatest(avg(term_count), 1)::float8 AS avgdl
               FROM journal WHERE user_id = $1)
    SELECT terms.term, corpus.n, corpus.avgdl,
           (SELECT count(*) FROM (SELECT FROM journal_terms p
                                  WHERE p.user_id = $1 AND p.lexeme = terms.term
                                  LIMIT $3) AS postings) AS df
    FROM terms, corpus
"""


def _in_time(first: int) -> str:
    """A turn's time within a window: parameters $first/$first+1 bound a window of time,
    $first+2/$first+3 one of month-days ('MM-DD') in any year; NULLs leave time free."""
    start, end, day_from, day_to = (f"${first + i}" for i in range(4))
    month_day = "to_char(j.created_at AT TIME ZONE 'UTC', 'MM-DD')"
    return f"""({start}::timestamptz IS NULL
                 OR j.created_at >= {start} AND j.created_at < {end}::timestamptz)
           AND ({day_from}::text IS NULL
                 OR {month_day} >= {day_from} AND {month_day} < {day_to}::text)"""


# the $5 best turns by BM25 over terms $3 (idf $4), $2 the mean length; $6 turns to leave out.
# Scored from the postings alone (instructions are dropped with the entries: there are few);
# {time} joins the journal for a window of time.
_BM25 = """
    SELECT p.turn_id, sum(s.idf * p.tf * ({k1} + 1) / (p.tf + {k1}
               * (1 - {b} + {b} * p.term_count / $2::float8))) AS bm25
    FROM unnest($3::text[], $4::float8[]) AS s(term, idf)
    JOIN journal_terms p ON p.user_id = $1 AND p.lexeme = s.term
    {time}
    WHERE NOT (p.turn_id = ANY($6::uuid[]))
    GROUP BY p.turn_id
    ORDER BY bm25 DESC, p.turn_id
    LIMIT $5
"""
_BM25_ANY_TIME = _BM25.format(k1=BM25_K1, b=BM25_B, time="")
_BM25_IN_TIME = _BM25.format(
    k1=BM25_K1, b=BM25_B, time=f"JOIN journal j ON j.turn_id = p.turn_id AND {_in_time(7)}"
)

# the most salient turns of a window, for a question that names a time and little else
_IN_WINDOW = f"""
    SELECT j.turn_id FROM journal j
    WHERE j.user_id = $1 AND NOT j.is_instruction AND NOT (j.turn_id = ANY($2::uuid[]))
      AND {_in_time(4)}
    ORDER BY j.salience_score DESC, j.created_at, j.turn_id
    LIMIT $3
"""


class JournalTerms:
    """The question's lexemes worth scoring, with their BM25 IDF over the user's journal:
    rarest first, while their postings fit POSTINGS_BUDGET; never a common one."""

    def __init__(self, rows: Sequence[asyncpg.Record]) -> None:
        n = rows[0]["n"] if rows else 0
        self.avgdl: float = rows[0]["avgdl"] if rows else 1.0
        self.terms: list[str] = []
        self.idf: list[float] = []
        postings = 0
        for row in sorted(rows, key=lambda r: (r["df"], r["term"])):
            postings += row["df"]
            if row["df"] > COMMON_POSTINGS or postings > POSTINGS_BUDGET:
                break
            self.terms.append(row["term"])
            self.idf.append(math.log(1 + (n - row["df"] + 0.5) / (row["df"] + 0.5)))


async def journal_terms(conn: Conn, *, user_id: UUID, question: str) -> JournalTerms:
    rows = await conn.fetch(_TERM_STATS, user_id, question, COMMON_POSTINGS + 1)
    return JournalTerms(rows)


async def bm25_turns(
    conn: Conn,
    *,
    user_id: UUID,
    terms: JournalTerms,
    exclude: Sequence[UUID],
    limit: int,
    window: Window | None = None,
) -> list[UUID]:
    """The `limit` best turns by BM25, best first, within `window` when one is given."""
    if not terms.terms:
        return []
    query, bounds = (
        (_BM25_ANY_TIME, ()) if window is None else (_BM25_IN_TIME, _time_bounds(window))
    )
    rows = await conn.fetch(
        query, user_id, terms.avgdl, terms.terms, terms.idf, limit, list(exclude), *bounds
    )
    return [row["turn_id"] for row in rows]


def _time_bounds(window: Window) -> tuple[datetime | str | None, ...]:
    """_in_time's four parameters: a window of time, or of month-days in any year."""
    if not window.any_year:
        return window.start, window.end, None, None
    start, end = window.start.strftime("%m-%d"), window.end.strftime("%m-%d")
    return None, None, start, end if end > start else "12-32"  # December's ends in January


async def salient_in_window(
    conn: Conn, *, user_id: UUID, window: Window, exclude: Sequence[UUID], limit: int
) -> list[UUID]:
    """The window's most salient turns."""
    rows = await conn.fetch(_IN_WINDOW, user_id, list(exclude), limit, *_time_bounds(window))
    return [row["turn_id"] for row in rows]


# each of turns $2 with its neighbours in time in the user's journal, the turn just after and
# the one just before; one index probe each (journal_user_created_idx), in one round trip
_NEIGHBOURS = """
    SELECT h.turn_id AS hit, after.turn_id AS next, before.turn_id AS previous
    FROM journal h
    LEFT JOIN LATERAL (SELECT m.turn_id FROM journal m
                       WHERE m.user_id = h.user_id AND m.created_at > h.created_at
                       ORDER BY m.created_at, m.turn_id LIMIT 1) AS after ON true
    LEFT JOIN LATERAL (SELECT m.turn_id FROM journal m
                       WHERE m.user_id = h.user_id AND m.created_at < h.created_at
                       ORDER BY m.created_at DESC, m.turn_id DESC LIMIT 1) AS before ON true
    WHERE h.user_id = $1 AND h.turn_id = ANY($2::uuid[])
"""


async def neighbours(
    conn: Conn, *, user_id: UUID, turn_ids: Sequence[UUID]
) -> tuple[list[UUID], list[UUID]]:
    """The turns just after and just before each of `turn_ids`, in their order: in a
    conversation the answer to a turn's question is often the next turn, whose own words need
    not repeat it ("How did you feel watching the meteor shower?" — "In awe of the universe")."""
    if not turn_ids:
        return [], []
    rows = {row["hit"]: row for row in await conn.fetch(_NEIGHBOURS, user_id, list(turn_ids))}
    around = [rows[turn_id] for turn_id in turn_ids if turn_id in rows]
    return (
        [row["next"] for row in around if row["next"] is not None],
        [row["previous"] for row in around if row["previous"] is not None],
    )


async def first_conversation_day(conn: Conn, *, user_id: UUID) -> datetime | None:
    return await conn.fetchval("SELECT min(created_at) FROM journal WHERE user_id = $1", user_id)
