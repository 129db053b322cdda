"""When a question asks about: a window of time read from its words ("on May 2nd", "in June
2023", "last week", "three days ago", "yesterday"), for P5 to look among the turns of that time.

Relative phrases count back from the moment the question is asked; a date without a year means
that day in any year (a journal spans years; the turns there say which one). Linear time: a
handful of bounded regular expressions over a question capped at the message limit.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY_FIRST = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s+{_YEAR})?", re.I)
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR})?", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b")
_IN_MONTH = re.compile(rf"\b(?:in|during|since|early|late|mid)\s+{_MONTH}\b", re.I)
_IN_YEAR = re.compile(rf"\b(?:in|during)\s+{_YEAR}\b", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_AGO = re.compile(
    r"\b(?P<n>\d{1,3}|a|an|one|two|three|four|five|six)\s+(?P<unit>day|week|month|year)s?\s+ago\b",
    re.I,
)
_LAST = re.compile(r"\b(?P<which>last|this|past)\s+(?P<unit>week|month|year)\b", re.I)
_DAYS = {"today": 0, "yesterday": 1}
_DAY_WORD = re.compile(r"\b(today|yesterday)\b", re.I)
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


@dataclass(frozen=True)
class Window:
    """Turns whose time falls in [start, end); `any_year` matches month and day in every year."""

    start: datetime
    end: datetime
    any_year: bool = False


def time_window(question: str, now: datetime | None = None) -> Window | None:
    """The window of time the question names, or None when it names none."""
    now = now or datetime.now(UTC)
    for read in (_absolute_day, _month_of_year, _relative):
        if window := read(question, now):
            return window
    return None


def _absolute_day(question: str, now: datetime) -> Window | None:
    match = _ISO.search(question) or _DAY_FIRST.search(question)
    if match := match or _MONTH_FIRST.search(question):
        month = match["month"]
        month_number = int(month) if month.isdigit() else MONTHS[month.lower()]
        day, year = int(match["day"]), match["year"]
        try:
            start = datetime(int(year) if year else now.year, month_number, day, tzinfo=UTC)
        except ValueError:  # "February 30th"
            return None
        return Window(start, start + timedelta(days=1), any_year=not year)
    return None


def _month_of_year(question: str, now: datetime) -> Window | None:
    if match := _MONTH_YEAR.search(question) or _IN_MONTH.search(question):
        year = int(match["year"]) if "year" in match.groupdict() else now.year
        start = datetime(year, MONTHS[match["month"].lower()], 1, tzinfo=UTC)
        end = (start + timedelta(days=32)).replace(day=1)
        return Window(start, end, any_year="year" not in match.groupdict())
    if match := _IN_YEAR.search(question):
        year = int(match["year"])
        return Window(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    return None


def _relative(question: str, now: datetime) -> Window | None:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if match := _DAY_WORD.search(question):
        start = today - timedelta(days=_DAYS[match[1].lower()])
        return Window(start, start + timedelta(days=1))
    if match := _AGO.search(question):
        n = match["n"].lower()
        days = (int(n) if n.isdigit() else _NUMBERS[n]) * _UNIT_DAYS[match["unit"].lower()]
        around = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 4))  # "two weeks ago" is roughly so
        return Window(around - slack, around + slack + timedelta(days=1))
    if match := _LAST.search(question):
        span = timedelta(days=_UNIT_DAYS[match["unit"].lower()])
        if match["which"].lower() == "last":
            return Window(today - 2 * span, today + timedelta(days=1))
        return Window(today - span, now + timedelta(seconds=1))
    return None


def in_window(moment: datetime, window: Window) -> bool:
    if not window.any_year:
        return window.start <= moment < window.end
    day, start, end = (_month_day(d) for d in (moment.astimezone(UTC), window.start, window.end))
    return start <= day < end if start < end else day >= start or day < end


def _month_day(moment: datetime) -> tuple[int, int]:
    return moment.month, moment.day
