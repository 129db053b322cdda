"""The pieces of hybrid search that need no database."""

from services.gateway.routes.search import snippet_for
from shared.db.search import or_query


def test_or_query_keeps_each_word_once_and_drops_operators() -> None:
    assert or_query("Vitamin B12 & homocysteine | (vitamin)!") == "vitamin | b12 | homocysteine"
    assert or_query("  ") == ""


def test_snippet_is_an_exact_substring_around_the_first_query_word() -> None:
    text = "Intro. " * 60 + "The homocysteine level rose sharply after the deficiency. " * 3
    snippet = snippet_for(text, "homocysteine levels")
    assert snippet in text
    assert "homocysteine" in snippet
    assert len(snippet) <= 240


def test_snippet_of_a_short_text_is_the_text() -> None:
    assert snippet_for("Short.", "absent words") == "Short."
