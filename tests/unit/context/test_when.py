"""The time a question names, for P5 to look among the turns of that time."""

from datetime import UTC, datetime

import pytest

from services.context.when import Window, in_window, time_window

NOW = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)


def day(year: int, month: int, date: int) -> datetime:
    return datetime(year, month, date, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did Caroline do on May 2nd?", Window(day(2026, 5, 2), day(2026, 5, 3), True)),
        ("What happened on 7 May 2023?", Window(day(2023, 5, 7), day(2023, 5, 8))),
        ("Who called on March 3, 2024?", Window(day(2024, 3, 3), day(2024, 3, 4))),
        ("the 2023-05-08 call", Window(day(2023, 5, 8), day(2023, 5, 9))),
        ("What did we plan in June 2023?", Window(day(2023, 6, 1), day(2023, 7, 1))),
        ("What did we plan in December?", Window(day(2026, 12, 1), day(2027, 1, 1), True)),
        ("What did we ship in 2022?", Window(day(2022, 1, 1), day(2023, 1, 1))),
        ("What did I say yesterday?", Window(day(2026, 11, 23), day(2026, 11, 24))),
        ("What did we discuss last week?", Window(day(2026, 11, 10), day(2026, 11, 25))),
        ("What did I decide two weeks ago?", Window(day(2026, 11, 7), day(2026, 11, 14))),
    ],
)
def test_dates_and_periods_become_windows(question: str, window: Window) -> None:
    assert time_window(question, NOW) == window


@pytest.mark.parametrize(
    "question",
    [
        "When did Melanie paint a sunrise?",
        "What may I do about churn?",  # 'may' the verb is no month
        "What happened on February 30th?",  # no such day
        "How many users signed up?",
    ],
)
def test_questions_without_a_time_name_none(question: str) -> None:
    assert time_window(question, NOW) is None


def test_a_day_without_a_year_matches_that_day_in_any_year() -> None:
    window = time_window("on May 2nd", NOW)
    assert window is not None
    assert in_window(datetime(2023, 5, 2, 18, tzinfo=UTC), window)
    assert not in_window(datetime(2023, 5, 3, tzinfo=UTC), window)
    december = time_window("in December", NOW)
    assert december is not None and in_window(datetime(2021, 12, 31, tzinfo=UTC), december)


def test_a_hostile_question_is_read_in_linear_time() -> None:
    hostile = "on" + " May" * 20_000 + " 2" * 20_000 + " 1 " * 20_000 + "in " * 20_000
    assert time_window(hostile, NOW) is not None  # and returns at once: no backtracking blow-up
