"""Relevance in 0-1, one measure for file passages and journal items: the IDF-weighted share of
the question's terms an item's text contains (weights: hybrid_search.TermStats), so the chat
service's 0.3 threshold means "the sources share little of what was asked"."""

from collections import OrderedDict
from collections.abc import Sequence

import asyncpg

from services.context.hybrid_search import TermStats

FALLBACK_TIERS = (0.7, 0.5, 0.3)  # seed 003: strict, then looser, then loosest; below: nothing
REMEMBERED_TEXTS = 20_000  # texts whose lexemes stay known (a journal cut is ~300 characters)

# the lexemes of each text, as PostgreSQL's English configuration makes them
_LEXEMES = """SELECT tsvector_to_array(to_tsvector('english', t)) AS lexemes
              FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i"""
# least recently used first; the same journal items come back question after question (P4 is
# the last 100 entries), and stemming them costs PostgreSQL ~0.1 ms each
_known: OrderedDict[str, frozenset[str]] = OrderedDict()


def first_tier(hits: Sequence[dict], limit: int) -> list[dict]:
    """The best `limit` hits at the strictest threshold any of them reaches (0.7 → 0.5 → 0.3)."""
    for threshold in FALLBACK_TIERS:
        passing = [h for h in hits if h["relevance"] >= threshold]
        if passing:
            return passing[:limit]
    return []


async def lexemes(
    conn: asyncpg.Connection | asyncpg.Pool, texts: Sequence[str]
) -> list[frozenset[str]]:
    """Each text's lexemes; only texts not seen lately are sent to PostgreSQL."""
    found = {text: _known[text] for text in texts if text in _known}
    for text in found:
        _known.move_to_end(text)
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    if missing:
        rows = await conn.fetch(_LEXEMES, missing)
        for text, row in zip(missing, rows, strict=True):
            found[text] = _known[text] = frozenset(row["lexemes"])
        while len(_known) > REMEMBERED_TEXTS:
            _known.popitem(last=False)
    return [found[text] for text in texts]


def share_of_terms(found: frozenset[str], stats: TermStats) -> float:
    """The relevance of a text whose lexemes are `found`."""
    if stats.total_weight <= 0:
        return 0.0
    matched = sum(w for term, w in zip(stats.terms, stats.weights, strict=True) if term in found)
    return matched / stats.total_weight


async def text_relevance(
    conn: asyncpg.Connection | asyncpg.Pool, stats: TermStats, texts: Sequence[str]
) -> list[float]:
    """The relevance of each text to the question whose term statistics are `stats`."""
    if not texts or stats.total_weight <= 0:
        return [0.0] * len(texts)
    return [share_of_terms(found, stats) for found in await lexemes(conn, texts)]
