"""Which questions ask for advice or an opinion (answered offline with the records, said so)."""

import pytest

from shared.text.advice import asks_for_advice


@pytest.mark.parametrize(
    "question",
    [
        "What should we do about fundraising?",
        "Do you think we should expand to Europe?",
        "Should I hire a CFO now?",
        "How should we price the Pro plan?",
        "Is it a good idea to raise this spring?",
        "What's your take on our churn?",
        "Any advice on the board meeting?",
        "What would you do, Gunnar?",
    ],
)
def test_advice_and_opinion_questions(question: str) -> None:
    assert asks_for_advice(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did we decide about fundraising?",
        "What did the expert recommend?",  # what the records recommend is a fact
        "How many backend engineers will we hire?",
        "What is our runway?",
        "Summarise the board meeting",
    ],
)
def test_questions_of_fact(question: str) -> None:
    assert not asks_for_advice(question)
