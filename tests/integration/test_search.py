"""GET /v1/search: hybrid retrieval over the user's own chunks, citable to the character."""

import asyncpg
import httpx
import pytest

from services.context.hybrid_search import BM25_B, BM25_K1, bm25_ranking, term_stats
from tests.benchmarks.memory_fixtures import insert_files
from tests.conftest import ClientFactory
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

PRICING = "# Pricing\n\nWe moved from per-seat pricing to usage tiers for predictable bills.\n"
HIRING = "# Hiring\n\nWe will hire two backend engineers in Lisbon before the third quarter.\n"


async def test_search_ranks_the_matching_chunk_first_with_an_exact_snippet(
    api_client: httpx.AsyncClient,
) -> None:
    for name, text in (("pricing.md", PRICING), ("hiring.md", HIRING)):
        await wait_for_status(api_client, (await upload(api_client, name, text))["id"], "ready")
    response = await api_client.get("/v1/search", params={"q": "engineers in Lisbon"})
    assert response.status_code == 200, response.text
    hits = response.json()["items"]
    assert hits[0]["filename"] == "hiring.md"
    assert hits[0]["ref"] == 1 and hits[0]["score"] > 0
    chunk = next(
        c
        for c in (await api_client.get(f"/v1/files/{hits[0]['file_id']}/chunks")).json()["items"]
        if c["id"] == hits[0]["chunk_id"]
    )
    assert hits[0]["snippet"] in chunk["text"]
    assert "Lisbon" in hits[0]["snippet"]
    assert (hits[0]["char_start"], hits[0]["line_start"]) == (chunk["char_start"], 1)


async def test_search_never_returns_another_users_chunks(make_client: ClientFactory) -> None:
    alice, bob = await make_client(), await make_client()
    record = await upload(alice, "secret.md", "# Secret\n\nThe acquisition target is Zyxcorp.\n")
    await wait_for_status(alice, record["id"], "ready")
    assert (await alice.get("/v1/search", params={"q": "Zyxcorp"})).json()["items"]
    assert (await bob.get("/v1/search", params={"q": "Zyxcorp"})).json()["items"] == []


async def test_an_empty_query_is_a_clear_422(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/v1/search", params={"q": ""})
    assert response.status_code == 422
    assert "q" in response.json()["detail"]


# full BM25 of every chunk of the user, from the chunks' own tsvectors: what the postings must give
BRUTE_FORCE_BM25 = f"""
    SELECT c.id, sum(s.idf * tf.n * ({BM25_K1} + 1) / (tf.n + {BM25_K1}
               * (1 - {BM25_B} + {BM25_B} * c.term_count / $2::float8))) AS bm25
    FROM file_chunks c, unnest(c.search_vector) AS lexeme,
         LATERAL (SELECT coalesce(array_length(lexeme.positions, 1), 1)::float8 AS n) tf,
         unnest($3::text[], $4::float8[]) AS s(term, idf)
    WHERE c.user_id = $1 AND s.term = lexeme.lexeme
    GROUP BY c.id ORDER BY bm25 DESC, c.id
"""


async def test_bm25_from_the_postings_is_full_bm25_and_follows_the_chunks(
    api_client: httpx.AsyncClient, db: asyncpg.Pool
) -> None:
    user_id = api_client.user_id  # type: ignore[attr-defined]
    pieces = [
        "Usage tiers replace per-seat pricing; pricing pricing pricing.",
        "We hire engineers in Lisbon. Lisbon engineers cost less than pricing consultants.",
        "The pricing committee met in Lisbon to review every discount and every tier.",
        "Nothing here about money: a note on the office plants and the coffee machine.",
    ]
    [file_id] = await insert_files(db, user_id, [("notes.txt", pieces)])
    question = "pricing tiers for Lisbon engineers"
    stats = await term_stats(db, user_id=user_id, text=question)
    assert stats.chunks == 4 and len(stats.terms) == 4
    for term, df in zip(stats.terms, stats.df, strict=True):  # as the GIN index counts them
        assert df == await db.fetchval(
            "SELECT count(*) FROM file_chunks WHERE user_id = $1 AND search_vector @@ $2::tsquery",
            user_id,
            term,
        )
    expected = await db.fetch(BRUTE_FORCE_BM25, user_id, stats.avgdl, stats.terms, stats.idf)
    ranked = await bm25_ranking(db, user_id=user_id, stats=stats, limit=10)
    assert [chunk_id for chunk_id, _ in ranked] == [r["id"] for r in expected]
    assert [score for _, score in ranked] == pytest.approx([r["bm25"] for r in expected])
    among = [r["id"] for r in expected[1:3]] + [expected[0]["id"]]  # scored from their postings
    picked = await bm25_ranking(db, user_id=user_id, stats=stats, among=among, limit=len(among))
    assert picked == [(chunk_id, pytest.approx(score)) for chunk_id, score in ranked[:3]]

    first = ranked[0][0]  # its text rewritten without the question's words: its postings go
    await db.execute("UPDATE file_chunks SET title = '', text = 'Plants.' WHERE id = $1", first)
    assert first not in [c for c, _ in await bm25_ranking(db, user_id=user_id, stats=stats)]
    await db.execute("DELETE FROM files WHERE id = $1", file_id)  # and all of them with the file
    assert await db.fetchval("SELECT count(*) FROM chunk_terms WHERE user_id = $1", user_id) == 0
