"""Seed 003: summary questions take the summary path; the relevance fallback 0.7 → 0.5 → 0.3."""

import pytest

from services.context.intent import is_summary_question, summary_topic
from services.context.relevance import first_tier


@pytest.mark.parametrize(
    "question",
    [
        "Summarise the board deck",
        "can you summarize this?",
        "Give me an overview",
        "What is this document about?",
        "what's this file about",
        "tl;dr please",
        "summary of the pricing memo",
    ],
)
def test_summary_questions(question: str) -> None:
    assert is_summary_question(question)


@pytest.mark.parametrize(
    "question",
    ["What did we decide about pricing?", "Who owns the hiring plan?", "What is the churn rate?"],
)
def test_specific_questions(question: str) -> None:
    assert not is_summary_question(question)


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Give me an overview of our Mars colony budget", "Mars colony budget"),
        ("summary of the pricing memo", "pricing memo"),
        ("Can you summarise everything about hiring?", "hiring"),
        ("Summarise this document", ""),
        ("What is this about?", ""),
        ("Give me a quick overview of my files, please", ""),
        ("tl;dr", ""),
    ],
)
def test_a_summary_questions_topic_is_its_words_besides_the_asking(
    question: str, topic: str
) -> None:
    assert summary_topic(question) == topic


def hits(*relevances: float) -> list[dict]:
    return [{"id": i, "relevance": r} for i, r in enumerate(relevances)]


def test_the_strictest_tier_any_hit_reaches_is_used() -> None:
    assert [h["id"] for h in first_tier(hits(0.4, 0.8, 0.75, 0.6), 5)] == [1, 2]
    assert [h["id"] for h in first_tier(hits(0.4, 0.55, 0.2), 5)] == [1]
    assert [h["id"] for h in first_tier(hits(0.35, 0.1, 0.31), 5)] == [0, 2]


def test_nothing_at_or_above_the_loosest_tier_means_no_passages() -> None:
    assert first_tier(hits(0.29, 0.1), 5) == []


def test_the_limit_keeps_the_best_ranked() -> None:
    assert [h["id"] for h in first_tier(hits(*[0.9] * 8), 5)] == [0, 1, 2, 3, 4]
