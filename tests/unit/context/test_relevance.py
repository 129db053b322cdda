"""Relevance of journal items: the IDF-weighted share of the question's terms their lexemes hold,
with each text's lexemes fetched from PostgreSQL once."""

import pytest

from services.context import relevance
from services.context.hybrid_search import TermStats
from services.context.relevance import lexemes, share_of_terms, text_relevance

STATS = TermStats(terms=["price", "tier"], idf=[2.0, 1.0], df=[3, 9], chunks=50, avgdl=100.0)


class FakeConnection:
    """Stems by splitting on spaces, recording which texts it was asked about."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def fetch(self, query: str, texts: list[str]) -> list[dict]:
        self.asked.append(list(texts))
        return [{"lexemes": text.lower().split()} for text in texts]


@pytest.fixture(autouse=True)
def nothing_remembered() -> None:
    relevance._known.clear()


def test_the_share_of_the_weights_of_the_terms_found() -> None:
    price, tier = STATS.weights
    assert share_of_terms(frozenset({"price", "other"}), STATS) == pytest.approx(
        price / (price + tier)
    )
    assert share_of_terms(frozenset({"price", "tier"}), STATS) == pytest.approx(1.0)
    assert share_of_terms(frozenset(), STATS) == 0.0


async def test_each_text_is_sent_once_and_results_keep_the_order_asked() -> None:
    conn = FakeConnection()
    both, tier = frozenset({"price", "tier"}), frozenset({"tier"})
    assert await lexemes(conn, ["Price tier", "tier", "Price tier"]) == [both, tier, both]
    assert conn.asked == [["Price tier", "tier"]]
    assert await lexemes(conn, ["tier", "new price"]) == [tier, frozenset({"new", "price"})]
    assert conn.asked[1:] == [["new price"]]


async def test_text_relevance_weighs_the_fetched_lexemes() -> None:
    scores = await text_relevance(FakeConnection(), STATS, ["price tier", "nothing", "tier"])
    price, tier = STATS.weights
    assert scores == pytest.approx([1.0, 0.0, tier / (price + tier)])


async def test_without_terms_nothing_is_fetched() -> None:
    conn = FakeConnection()
    empty = TermStats(terms=[], idf=[], df=[], chunks=0, avgdl=1.0)
    assert await text_relevance(conn, empty, ["a", "b"]) == [0.0, 0.0]
    assert conn.asked == []
