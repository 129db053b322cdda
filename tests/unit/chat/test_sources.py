"""Citations keep only what the answer cites, with snippets quoted exactly from the passage."""

import pytest

from services.chat.sources import final_citations, find_quote
from shared.personas import is_name_question
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle


def test_a_quote_with_collapsed_whitespace_is_found_as_the_passage_wrote_it() -> None:
    passage = "First line of the\n  decision text. Other."
    assert find_quote("line of the decision text.", passage) == "line of the\n  decision text."
    assert find_quote("not in it", passage) is None


def test_citations_are_the_cited_refs_in_order_with_exact_snippets() -> None:
    bundle, passages = file_bundle({"pricing.md": PRICING, "hiring.md": HIRING})
    answer = (
        "We will hire two backend engineers in the second quarter. [Ref: 2] "
        "Existing customers keep the old price of $39 until the end of June. [Ref: 1] "
        "Unknown. [Ref: 9]"
    )
    citations = final_citations(answer, bundle, passages)
    assert [c.ref for c in citations] == [2, 1]
    assert citations[0].snippet == "We will hire two backend engineers in the second quarter."
    for citation in citations:
        assert citation.snippet in passages[citation.ref]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Who are you?", True),
        ("what's your name", True),
        ("What is your name, please?", True),
        ("Please introduce yourself", True),
        ("Who are you going to hire for the backend team next quarter and at what salary?", False),
        ("What is the name of our pricing tier?", False),
    ],
)
def test_name_questions_are_recognised(message: str, expected: bool) -> None:
    assert is_name_question(message) is expected
