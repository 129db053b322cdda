"""The pieces of hybrid search that need no database."""

from services.context.snippets import snippet_for


def test_snippet_is_an_exact_substring_around_the_first_query_word() -> None:
    text = "Intro. " * 60 + "The homocysteine level rose sharply after the deficiency. " * 3
    snippet = snippet_for(text, "homocysteine levels")
    assert snippet in text
    assert "homocysteine" in snippet
    assert len(snippet) <= 240


def test_snippet_of_a_short_text_is_the_text() -> None:
    assert snippet_for("Short.", "absent words") == "Short."
