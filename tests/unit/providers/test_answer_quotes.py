"""The local answerer quotes the sentence that answers the question's type, never a question,
and refuses when the best sentence is no evidence."""

import pytest

from shared.providers.local.quotes import best_sentences, sentences_of
from shared.text.answer_types import AnswerType, answer_type, holds_answer_type


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did the Normans conquer England?", AnswerType.DATE),
        ("In what year was the duchy founded?", AnswerType.DATE),
        ("How many ships sailed?", AnswerType.NUMBER),
        ("What percentage of revenue is recurring?", AnswerType.NUMBER),
        ("Who led the expedition?", AnswerType.PERSON),
        ("Where did Ines move to?", AnswerType.PLACE),
        ("Why did we raise prices?", AnswerType.ANY),
    ],
)
def test_the_wh_phrase_names_the_kind_of_answer(question: str, kind: AnswerType) -> None:
    assert answer_type(question) is kind


def test_a_sentence_holds_an_answer_of_a_kind_by_its_form() -> None:
    assert holds_answer_type("The treaty was signed in 911.", AnswerType.DATE)
    assert holds_answer_type("We met last week at the office.", AnswerType.DATE)
    assert not holds_answer_type("The treaty was signed by the king.", AnswerType.DATE)
    assert holds_answer_type("Twelve ships sailed.", AnswerType.NUMBER)
    assert not holds_answer_type("The ships sailed north.", AnswerType.NUMBER)
    assert holds_answer_type("the expedition was led by Robert Guiscard.", AnswerType.PERSON)


def quotes(question: str, *passages: str) -> list[str]:
    found = sentences_of(dict(enumerate(passages, start=1)))
    return [c.text for c in best_sentences(question, found)]


def test_a_when_question_is_answered_by_the_sentence_with_the_date() -> None:
    passage = (
        "The Normans conquered England after a long campaign of conquest by the Normans. "
        "The Normans conquered England in 1066, at Hastings."
    )
    chosen = quotes("When did the Normans conquer England?", passage)
    assert chosen[0] == "The Normans conquered England in 1066, at Hastings."


def test_a_question_is_never_evidence() -> None:
    journal = "User: When did we sign the Lisbon lease?\ngunnar: Let me check the files."
    assert quotes("When did we sign the Lisbon lease?", journal) == []
    answered = journal + "\nUser: We signed the Lisbon lease on March 3rd."
    assert quotes("When did we sign the Lisbon lease?", answered) == [
        "We signed the Lisbon lease on March 3rd."  # its words, not the speaker's label
    ]


def test_no_answer_when_the_best_sentence_lacks_the_asked_kind_or_the_names() -> None:
    passage = "Rollo signed the treaty with the Frankish king at Saint-Clair-sur-Epte."
    assert quotes("When did Rollo sign the treaty?", passage) == []  # no date in it
    dated = "William signed the treaty with the Frankish king in 911."
    assert quotes("When did Rollo sign the treaty?", dated) == []  # about someone else
    assert quotes("When did William sign the treaty?", dated) == [dated]


def test_a_name_said_in_the_possessive_is_still_named() -> None:
    passage = "As of October 2007, Canada's national unemployment rate of 5.9% was its lowest."
    assert quotes("What is Canada's national unemployment rate?", passage) == [passage]
    assert quotes("What is Canada’s national unemployment rate?", passage) == [passage]


def test_hard_wrapped_lines_stay_one_sentence() -> None:
    passage = "We moved to usage tiers because our largest\ncustomers wanted predictable bills."
    assert quotes("Why did we move to usage tiers?", passage) == [passage]


def test_the_section_title_names_the_period_when_the_sentence_opens_with_the_asked_word() -> None:
    """ "Gross margin was 71%." under "Q2 METRICS" answers for Q2: its capitalised first word is
    the question's own topic, not another name that would keep the title from speaking for it."""
    report = "Revenue grew 18%.\nGross margin was 71%, down one point.\nChurn rose to 3.1%.\n"
    found = sentences_of({1: report}, {1: "Q2 METRICS"})
    asked = [c.text for c in best_sentences("What was gross margin in Q2?", found)]
    assert asked == ["Gross margin was 71%, down one point."]
    assert best_sentences("What was gross margin in Q3?", found) == []
