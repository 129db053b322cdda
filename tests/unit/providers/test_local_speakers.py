"""'Our gross margin' is answered from the asker's own records, not from the figures an
interviewed expert gives for the company they ran."""

from shared.providers.local.quotes import best_sentences, sentences_of
from shared.providers.local.speakers import Speakers, asks_about_ours, is_third_party

INTERVIEW = (
    "BOSS: How should we think about pricing over the next year?\n\n"
    "EXPERT 2: The numbers were roughly $6.7M in annual revenue, 44% gross margin and 309"
    " customers. I'd recommend usage tiers.\n"
)
BOARD = "Revenue grew to $182k in February. Gross margin held at 74%. Cash is $2.1M."


def test_a_sentence_belongs_to_the_turn_it_sits_in() -> None:
    speakers = Speakers(INTERVIEW)
    assert speakers.at(0) == "BOSS"
    assert speakers.at(INTERVIEW.index("The numbers")) == "EXPERT 2"
    assert Speakers("and 44% gross margin.", title="EXPERT 2: on sales cycles").at(0) == "EXPERT 2"
    assert Speakers("Decision: we raise in May.").at(5) == ""  # a note's label is no speaker
    assert Speakers("Note: see below.").at(3) == ""


def test_only_others_than_the_asker_are_third_parties() -> None:
    assert is_third_party("EXPERT 2") and is_third_party("MARIA LOPEZ")
    assert not is_third_party("BOSS") and not is_third_party("")


def test_our_figure_comes_from_our_records_when_they_hold_it() -> None:
    found = sentences_of({1: INTERVIEW, 2: BOARD})
    quoted = [c.text for c in best_sentences("What is our gross margin?", found)]
    assert quoted == ["Gross margin held at 74%."]


def test_the_experts_figure_still_answers_when_ours_is_not_on_record() -> None:
    found = sentences_of({1: INTERVIEW, 2: "Cash is $2.1M. Runway is 14 months."})
    quoted = [c.text for c in best_sentences("What is our gross margin?", found)]
    assert len(quoted) == 1 and "44% gross margin" in quoted[0]


def test_a_question_about_someone_else_quotes_the_expert() -> None:
    found = sentences_of({1: INTERVIEW, 2: BOARD})
    assert asks_about_ours("What is our margin?") and not asks_about_ours("What was the margin?")
    quoted = [c.text for c in best_sentences("What gross margin did the expert report?", found)]
    assert any("44% gross margin" in text for text in quoted)
