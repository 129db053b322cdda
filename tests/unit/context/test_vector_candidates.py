"""The HNSW search width for a user's share of the chunks (context/vector_candidates.py)."""

from services.context.vector_candidates import DEFAULT_WIDTH, search_width


def test_the_search_width_follows_the_users_share_of_the_chunks() -> None:
    assert search_width(95_000, 100_000) == 106  # 2 × 50 / 0.95, rounded up
    assert search_width(99_000, 100) == 100  # a table analysed when smaller: the user's alone
    assert search_width(100_000, 100_000) == 100
    assert search_width(10_000, 100_000) == 1000
    assert search_width(2_000, 100_000) is None  # 5,000 would be needed: compared exactly
    assert search_width(30, -1) == 100  # a table never analysed counts as the user's alone
    assert search_width(1, 10**9) is None
    assert DEFAULT_WIDTH == 40  # pgvector's own default, which the exact scan leaves as is
