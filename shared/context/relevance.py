"""Relevance in 0-1, one measure for file passages and journal items: the IDF-weighted share of
the question's terms an item's text contains (weights: shared.db.search.TermStats), so the chat
service's 0.3 threshold means "the sources share little of what was asked"."""

from collections.abc import Sequence

import asyncpg

from shared.db.search import TermStats

FALLBACK_TIERS = (0.7, 0.5, 0.3)  # seed 003: strict, then looser, then loosest; below: nothing

# the lexemes of each text, as PostgreSQL's English configuration makes them
_LEXEMES = """SELECT tsvector_to_array(to_tsvector('english', t)) AS lexemes
              FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i"""


def first_tier(hits: Sequence[dict], limit: int) -> list[dict]:
    """The best `limit` hits at the strictest threshold any of them reaches (0.7 → 0.5 → 0.3)."""
    for threshold in FALLBACK_TIERS:
        passing = [h for h in hits if h["relevance"] >= threshold]
        if passing:
            return passing[:limit]
    return []


async def text_relevance(
    conn: asyncpg.Connection | asyncpg.Pool, stats: TermStats, texts: Sequence[str]
) -> list[float]:
    """The relevance of each text to the question whose term statistics are `stats`."""
    if not texts or stats.total_weight <= 0:
        return [0.0] * len(texts)
    weight = dict(zip(stats.terms, stats.weights, strict=True))
    rows = await conn.fetch(_LEXEMES, list(texts))
    return [
        sum(weight[t] for t in set(row["lexemes"]) if t in weight) / stats.total_weight
        for row in rows
    ]
