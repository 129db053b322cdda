"""The entities a question names, and whether a sentence speaks of them or of a neighbour."""

from collections.abc import Callable

import pytest

from shared.text.entities import (
    Entity,
    mentions,
    names_another,
    names_the_entities,
    question_entities,
)
from tests.unit.text.linear_time import assert_linear


def named(question: str) -> list[str]:
    return [entity.text for entity in question_entities(question)]


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        ("What does Competitor B charge?", ["competitor b"]),
        ("What does Acme charge compared to Beta?", ["acme", "beta"]),
        ("What is Acme's price per seat?", ["acme"]),
        ("When was Abraham Lincoln born?", ["abraham lincoln"]),
        ("Who was the Duke of Normandy?", ["duke of normandy"]),
        ("Did Maya Chen approve the Tier 2 pricing?", ["maya chen", "tier 2"]),
        ("What did we decide in March about Q2?", []),  # a month and a period are no entities
        ("Acme charges what?", []),  # a question's first word may be any word
        ("What do you think, Vlad?", []),  # addressed to, not about
        ("What should we do about pricing?", []),
    ],
)
def test_a_question_names_its_entities_by_form(question: str, entities: list[str]) -> None:
    assert named(question) == entities


def test_a_labelled_entity_is_named_only_by_its_whole_phrase() -> None:
    b = Entity(("competitor", "b"), labelled=True)
    assert mentions(b, "Competitor B charges $99 per seat.")
    assert mentions(b, "Competitor B's seats cost $99.")
    assert not mentions(b, "Competitor A charges $49 per seat.")
    assert not mentions(b, "B2B buyers compare every competitor.")


def test_a_name_is_named_by_any_of_its_words() -> None:
    lincoln = Entity(("abraham", "lincoln"), labelled=False)
    assert mentions(lincoln, "Lincoln was born in a log cabin.")
    assert not mentions(lincoln, "He was born in a log cabin.")


def test_a_sentence_is_quotable_for_the_entity_it_names_not_its_neighbour() -> None:
    asked = question_entities("What does Competitor B charge?")
    assert names_the_entities(asked, "Competitor B charges $99 per seat.")
    assert not names_the_entities(asked, "Competitor A charges $49 per seat.")
    assert names_the_entities([], "Anything at all is quotable for no entity.")


def test_a_section_title_names_the_entity_for_a_sentence_that_names_no_other() -> None:
    asked = question_entities("What does Acme charge?")
    assert names_the_entities(asked, "They charge $49 per seat.", title="Acme")
    assert not names_the_entities(asked, "Beta charges $79 per seat.", title="Acme")
    assert not names_the_entities(asked, "They charge $49 per seat.", title="Competitors")
    b = question_entities("What does Competitor B charge?")
    assert not names_the_entities(b, "Competitor A charges $49.", title="Competitor B")
    assert names_another("Beta charges $79 per seat.", asked, "Acme")
    assert not names_another("In March they charged $49 per seat.", asked, "Acme")


def test_half_of_several_entities_is_enough() -> None:
    asked = question_entities("What does Acme charge compared to Beta?")
    assert names_the_entities(asked, "Acme charges $49 per seat.")
    three = question_entities("Who led the Normans from Rouen to Hastings?")
    assert not names_the_entities(three, "The Normans sailed in the autumn.")
    assert names_the_entities(three, "The Normans landed near Hastings.")


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "What about " + "Acme " * n + "?",
        lambda n: "What about " + "Competitor B " * n + "?",
        lambda n: "What, " * n + "Vlad?",
    ],
)
def test_hostile_questions_are_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(question_entities, make, 5_000)
    asked = question_entities("What does Competitor B charge?")
    assert_linear(lambda text: names_the_entities(asked, text, "Acme"), make, 5_000)


def test_a_sentence_opening_with_a_pronoun_speaks_of_what_the_one_before_named() -> None:
    asked = question_entities("Who commissioned the Bayeux Tapestry?")
    before = "The most famous work is the Bayeux Tapestry."
    assert names_the_entities(asked, "It was commissioned by Odo.", follows=before)
    assert not names_the_entities(asked, "It was commissioned by Odo.")
    b = question_entities("What does Competitor B's enterprise plan cost?")
    a_before = "Competitor A charges $49 per seat."
    assert not names_the_entities(b, "Its enterprise plan costs $99.", follows=a_before)
