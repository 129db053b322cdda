"""A note's parts as every reader of notes sees them: its lists by heading, a sentence that
decides something (a figure decides nothing), an item's owner and its deadline."""

import pytest

from shared.text.notes import dated, decides, headings, list_at, owner_of
from tests.unit.text.linear_time import assert_linear


@pytest.mark.parametrize(
    "sentence",
    [
        "We decided to raise a $3M seed extension at a $20M cap.",  # a decision carrying figures
        "After a long discussion we decided to raise the price to $49 per seat.",
        "We agreed to drop the dark-mode redesign from this release.",
        "The board approved the 2026 budget of $1.2M.",
        "Decision: usage-based pricing from April.",
        "We all agreed.",
        "It was decided that Ben owns billing.",
    ],
)
def test_a_sentence_that_takes_a_decision_decides(sentence: str) -> None:
    assert decides(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Revenue grew 12% in Q2.",
        "Gross margin was 71% in Q2.",
        "Pricing tiers improved by 3% once we decided to move to usage tiers.",
        "Churn fell 2 points after the board approved the onboarding program.",
        "Everyone agreed the numbers looked healthy.",
        "We have not decided on the free tier yet.",
        "The free tier is still to be decided.",
        "Should we decide to raise now?",
    ],
)
def test_a_figure_an_opinion_or_an_open_point_decides_nothing(sentence: str) -> None:
    assert not decides(sentence)


def test_headings_open_lists_in_markdown_and_colon_form() -> None:
    note = "# Sync\n\nDecisions:\n- A.\n\n## Action items\n- B.\n\n## Figures\nC.\n"
    found = headings(note)
    assert [name for _, name in found] == [None, "decisions", "action_items", None]
    assert list_at(found, note.index("- A")) == "decisions"
    assert list_at(found, note.index("- B")) == "action_items"
    assert list_at(found, note.index("C.")) is None
    assert list_at(found, 0) is None


@pytest.mark.parametrize(
    ("said", "listed", "owner"),
    [
        ("Maria — ship the pricing page by Friday.", False, "Maria"),
        ("Tom will prepare the data room by April 15.", False, "Tom"),
        ("Action: Chloe to draft the onboarding copy.", False, "Chloe"),
        ("- Role: Head of sales | Owner: Maya", False, "Maya"),
        ("Ben migrates the billing service by March 20.", True, "Ben"),
        ("Ben migrates the billing service by March 20.", False, None),  # not in a list of actions
        ("Revenue grows 12% a quarter.", False, None),
        ("We will hire two engineers.", False, None),
    ],
)
def test_the_owner_is_the_person_at_the_items_head(
    said: str, listed: bool, owner: str | None
) -> None:
    assert owner_of(said, None, listed=listed) == owner


def test_the_speaker_of_i_will_owns_it() -> None:
    assert owner_of("I'll migrate the billing service.", "Ben", listed=False) == "Ben"


@pytest.mark.parametrize(
    ("sentence", "is_dated"),
    [
        ("The next board meeting is on June 12, 2025.", True),
        ("We will hire two engineers before October.", True),
        ("Hiring freeze on sales until Q3.", True),
        ("I need to make a call by the end of the month.", True),
        ("Tom walked the board through the February numbers.", False),
        ("The coefficient at 28 wk was 1.8 microm2/ms.", False),  # a decimal is no date
        ("Great, see you next week.", False),
    ],
)
def test_a_date_is_a_day_or_a_deadline(sentence: str, is_dated: bool) -> None:
    assert dated(sentence) is is_dated


def test_reading_a_note_is_linear() -> None:
    assert_linear(
        lambda text: (decides(text), dated(text), owner_of(text, "Ann", listed=True)),
        lambda n: "once we " + "decided a " * n + "by " * n,
        20_000,
    )
    assert_linear(headings, lambda n: "## Decisions\n- We decided.\n" * n, 5_000)
