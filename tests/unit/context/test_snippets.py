"""Snippets are exact substrings of the cited text, about SNIPPET_CHARS long, and start and end
at word boundaries."""

from hypothesis import given, settings
from hypothesis import strategies as st

from services.context.snippets import MAX_WORD_SHIFT, SNIPPET_CHARS, snippet_for, snippet_span

OPENING = "The board met in March to review the year. " * 3
REVENUE_LINE = (
    "Annual recurring revenue closed the quarter at 4.2 million euros, up 18 percent on the "
    "previous quarter, driven by the move to usage tiers and a lower churn among small teams. "
)
REVENUE = OPENING + REVENUE_LINE + "Hiring stays frozen until the summer. " * 4


def at_word_boundaries(text: str, query: str) -> bool:
    start, end = snippet_span(text, query)
    starts = start == 0 or text[start - 1].isspace()
    ends = end == len(text) or text[end].isspace()
    return starts and ends and not text[start:end].startswith((" ", "\n"))


def test_a_snippet_in_the_middle_of_a_text_starts_and_ends_with_whole_words() -> None:
    question = "How much recurring revenue?"
    snippet = snippet_for(REVENUE, question)
    assert snippet in REVENUE and "recurring revenue" in snippet
    assert at_word_boundaries(REVENUE, question) and snippet == snippet.strip()
    assert SNIPPET_CHARS - MAX_WORD_SHIFT <= len(snippet) <= SNIPPET_CHARS


def test_a_snippet_at_the_start_of_a_text_ends_with_a_whole_word() -> None:
    assert REVENUE.startswith(snippet_for(REVENUE, "Who met?"))
    assert at_word_boundaries(REVENUE, "Who met?")


def test_a_snippet_near_the_end_of_a_text_runs_to_its_end() -> None:
    assert REVENUE.rstrip().endswith(snippet_for(REVENUE, "summer"))
    assert at_word_boundaries(REVENUE, "summer")


def test_a_word_too_long_to_keep_whole_is_cut_rather_than_lost() -> None:
    assert snippet_for("x" * 1000, "x") == "x" * SNIPPET_CHARS


def test_a_short_text_is_its_own_snippet() -> None:
    assert snippet_for("  Short text.\n", "absent words") == "Short text."


WORDS = st.text(alphabet="abcdefghij", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(WORDS, min_size=1, max_size=160) | st.lists(WORDS, min_size=60, max_size=160),
    st.lists(st.sampled_from([" ", "\n", "  ", " \n"]), min_size=1, max_size=120),
    st.lists(WORDS, max_size=3),
)
def test_any_snippet_is_an_exact_substring_of_whole_words(
    words: list[str], gaps: list[str], query_words: list[str]
) -> None:
    text = "".join(word + gaps[i % len(gaps)] for i, word in enumerate(words))
    query = " ".join(query_words)
    snippet = snippet_for(text, query)
    assert snippet in text and len(snippet) <= SNIPPET_CHARS
    assert at_word_boundaries(text, query)
    if len(text.strip()) > SNIPPET_CHARS:
        assert len(snippet) >= SNIPPET_CHARS - 2 * 14  # at most a word and two gaps dropped
