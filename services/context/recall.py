"""P5, recall from the whole journal (seed 002's salience-weighted search, made to find old
turns by what they say): BM25 over each turn's own words, the turns next to its hits and, when
vectors vote (a real embedding model and ChatSettings.recall_vector_weight > 0; off by default,
as measured there), the HNSW neighbours of the question's vector, fused by reciprocal rank,
then weighted by salience. A question that names a time ("on May 2nd", "last week", "in our
first conversation") also ranks the turns of that time. Never an instruction, never a turn
P1-P4 already hold; a recalled turn enters with its date and its own words, so the words that
answer are in the context, not only its cut."""

import re
from collections.abc import Sequence
from datetime import timedelta
from uuid import UUID

import asyncpg

from services.context import journal_search, render
from services.context.budget import Candidate
from services.context.when import Window, time_window
from shared.db import context as queries

RRF_K = 60
DEPTH_PER_RESULT = 5  # candidates from each ranking per P5 result (see journal_search bench)
WINDOW_WEIGHT = 2.0  # a turn of the time the question names: what it asks about
# the turns around a lexical hit vote too, the next one more than the one before (LoCoMo dev,
# P4 15 / P5 30, tune half: evidence in context 0.858 alone, 0.883 with the next turn at 0.5,
# 0.896 with the previous at 0.25 as well; 0.4 for the previous, or 0.8 for the next, crowd
# the hits themselves out)
NEXT_TURN_WEIGHT = 0.5
PREVIOUS_TURN_WEIGHT = 0.25
# (salience/10)^0.1: a prior, not a filter — a salience-10 turn passes a salience-1 one only
# within ~25% of its relevance. Stronger weights (0.2, 0.5) and the hashed embedder's vector
# votes each lowered LoCoMo's evidence-in-context (tests/benchmarks/locomo.py; old evidence,
# tune half: 0.5 → 0.48, 0.2 → 0.76, 0.1 → 0.78)
SALIENCE_EXPONENT = 0.1
_FIRST_CONVERSATION = re.compile(
    r"\b(?:first|earliest)\s+(?:conversation|chat|session|talk|time\s+we\s+(?:talked|spoke|met))",
    re.IGNORECASE,
)

Ranking = Sequence[UUID]


def fuse(rankings: Sequence[tuple[Ranking, float]]) -> dict[UUID, float]:
    """Reciprocal rank fusion: each ranking adds weight / (RRF_K + rank) to its turns."""
    fused: dict[UUID, float] = {}
    for ranking, weight in rankings:
        for rank, turn_id in enumerate(ranking, start=1):
            fused[turn_id] = fused.get(turn_id, 0.0) + weight / (RRF_K + rank)
    return fused


def weighted_by_salience(
    fused: dict[UUID, float], entries: Sequence[asyncpg.Record], limit: int
) -> list[tuple[asyncpg.Record, float]]:
    """The best `limit` entries by fused score × (salience / 10) ^ SALIENCE_EXPONENT; never an
    instruction (in scope, P3 holds it; out of scope, it must never enter)."""
    scored = [
        (entry, fused[entry["turn_id"]] * (entry["salience_score"] / 10) ** SALIENCE_EXPONENT)
        for entry in entries
        if entry["turn_id"] in fused and not entry["is_instruction"]
    ]
    return sorted(scored, key=lambda s: (-s[1], s[0]["turn_id"]))[:limit]


async def question_window(conn: asyncpg.Connection, user_id: UUID, query: str) -> Window | None:
    """The time the question names: a date or period, or the day of the first conversation."""
    if window := time_window(query):
        return window
    if _FIRST_CONVERSATION.search(query):
        first = await journal_search.first_conversation_day(conn, user_id=user_id)
        if first is not None:
            day = first.replace(hour=0, minute=0, second=0, microsecond=0)
            return Window(day, day + timedelta(days=1))
    return None


async def rankings(
    conn: asyncpg.Connection,
    *,
    user_id: UUID,
    query: str,
    vector: Sequence[float] | None,
    vector_weight: float,
    loaded: set[UUID],
    depth: int,
) -> list[tuple[Ranking, float]]:
    """Every ranking P5 fuses, each with its weight (vectors vote only with a vector)."""
    exclude = list(loaded)
    terms = await journal_search.journal_terms(conn, user_id=user_id, question=query)
    lexical = await journal_search.bm25_turns(
        conn, user_id=user_id, terms=terms, exclude=exclude, limit=depth
    )
    found: list[tuple[Ranking, float]] = [(lexical, 1.0)]
    after, before = await journal_search.neighbours(conn, user_id=user_id, turn_ids=lexical)
    for around, weight in ((after, NEXT_TURN_WEIGHT), (before, PREVIOUS_TURN_WEIGHT)):
        found.append(([turn_id for turn_id in around if turn_id not in loaded], weight))
    if vector is not None and vector_weight > 0:
        nearest = await queries.nearest_journal(
            conn, user_id=user_id, vector=vector, depth=depth + len(loaded)
        )
        found.append(([r["turn_id"] for r in nearest if not r["is_instruction"]], vector_weight))
    if window := await question_window(conn, user_id, query):
        timed = await journal_search.bm25_turns(
            conn, user_id=user_id, terms=terms, exclude=exclude, limit=depth, window=window
        )
        salient = await journal_search.salient_in_window(
            conn, user_id=user_id, window=window, exclude=exclude, limit=depth
        )
        found += [(timed, WINDOW_WEIGHT), (salient, WINDOW_WEIGHT / 2)]
    return [(ranking, weight) for ranking, weight in found if ranking]


async def recalled_candidates(
    conn: asyncpg.Connection,
    *,
    user_id: UUID,
    query: str,
    vector: Sequence[float] | None,
    vector_weight: float,
    loaded: set[UUID],
    limit: int,
) -> list[Candidate]:
    """P5's entries as context items, best first."""
    depth = limit * DEPTH_PER_RESULT
    found = await rankings(
        conn,
        user_id=user_id,
        query=query,
        vector=vector,
        vector_weight=vector_weight,
        loaded=loaded,
        depth=depth,
    )
    fused = fuse(found)
    fused = {turn_id: score for turn_id, score in fused.items() if turn_id not in loaded}
    shortlist = sorted(fused, key=lambda t: (-fused[t], t))[:depth]
    entries = await queries.recalled_entries(conn, user_id=user_id, turn_ids=shortlist)
    return [
        Candidate(
            "journal",
            entry["turn_id"],
            render.recalled_text(entry, query),
            entry["created_at"],
            score=round(score, 4),
            citation=render.recalled_citation(entry, query),
        )
        for entry, score in weighted_by_salience(fused, entries, limit)
    ]
