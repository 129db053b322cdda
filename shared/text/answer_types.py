"""What kind of answer a question asks for, and whether a sentence holds one.

"When ...?" wants a date or time, "how many ...?" a number, "who ...?" a person (or a group),
"where ...?" a place; the local answerer prefers the sentence that holds that kind of answer,
and a sentence without one does not answer the question, however many of its words it shares.
The test is by form (dates, numbers, capitalised names, place prepositions), not by meaning:
cheap, deterministic and in linear time.
"""

import re
from enum import Enum

from shared.text.words import STOP_WORDS, stem, words

MIN_NAMES = 0.5  # share of the question's names evidence must mention


class AnswerType(Enum):
    DATE = "date"
    NUMBER = "number"
    PERSON = "person"
    PLACE = "place"
    ANY = "any"


_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_RELATIVE = (
    r"yesterday|today|tomorrow|tonight|last\s+(?:week|month|year|night|weekend)"
    r"|(?:next|this)\s+(?:week|month|year|weekend)|ago|recently|morning|evening|afternoon"
    r"|spring|summer|autumn|fall|winter|century|centuries|decade|era|age|period|reign|times?"
)
_DATE = re.compile(
    rf"\b(?:{_MONTHS})\b|\b(?:{_WEEKDAYS})\b|\b(?:{_RELATIVE})\b|\b1\d{{3}}s?\b|\b20\d\d\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b|\b\d{1,2}:\d\d\b"
    r"|\b(?:in|since|by|until|till|from|around|circa|before|after|AD|BC)\s+\d{3,4}\b|\b\d{3,4}\s+(?:AD|BC)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|hundred|thousand|million|billion|dozen|several|half|once|twice|many|few"
)
_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+|\b[A-Z]{2,}\b|\b(?:he|she|they|i)\b")
_PLACE = re.compile(r"\b(?:in|at|from|to|near|into|across|on)\s+(?:the\s+)?[A-Z]\w+")

_QUESTION_TYPES: tuple[tuple[re.Pattern[str], AnswerType], ...] = (
    (re.compile(r"\bhow\s+(?:many|much|long|old|often|far|big|large)\b", re.I), AnswerType.NUMBER),
    (
        re.compile(r"\bwhat\s+(?:number|percent(?:age)?|amount|price|cost)\b", re.I),
        AnswerType.NUMBER,
    ),
    (
        re.compile(r"\bwhen\b|\bwhat\s+(?:year|date|day|month|time|century)\b", re.I),
        AnswerType.DATE,
    ),
    (re.compile(r"\bwhich\s+(?:year|date|day|month|century)\b", re.I), AnswerType.DATE),
    (re.compile(r"\bwho(?:m|se)?\b", re.I), AnswerType.PERSON),
    (
        re.compile(r"\bwhere\b|\bwhat\s+(?:country|city|town|place|region)\b", re.I),
        AnswerType.PLACE,
    ),
)


def answer_type(question: str) -> AnswerType:
    """The kind of answer the question's wh-phrase asks for (ANY when it names none)."""
    for pattern, kind in _QUESTION_TYPES:
        if pattern.search(question):
            return kind
    return AnswerType.ANY


def holds_answer_type(sentence: str, kind: AnswerType) -> bool:
    """Whether the sentence holds an answer of that kind (by form)."""
    match kind:
        case AnswerType.DATE:
            return bool(_DATE.search(sentence))
        case AnswerType.NUMBER:
            return bool(_NUMBER.search(sentence))
        case AnswerType.PERSON:
            return bool(_NAME.search(sentence))
        case AnswerType.PLACE:
            return bool(_PLACE.search(sentence) or _NAME.search(sentence))
    return True


def key_names(question: str) -> set[str]:
    """The question's names: capitalised words past its first, and numbers, lower-cased —
    what the evidence must mention for the question to be about it."""
    found = set()
    for index, match in enumerate(re.finditer(r"[^\W_]+", question)):
        word = match.group(0)
        if word.isdigit() or (index > 0 and word[:1].isupper() and word.lower() not in STOP_WORDS):
            found.add(word.lower())
    return found


def could_answer(question: str, passage: str, *, named_by: str = "") -> bool:
    """Whether a passage could be evidence for the question at all: it (or `named_by`, the
    title of the section it speaks for) mentions most of the names the question is about, and
    it holds an answer of the asked kind."""
    names = {stem(name) for name in key_names(question)}
    said = {stem(w) for w in words(f"{named_by} {passage}")}
    if names and len(names & said) / len(names) < MIN_NAMES:
        return False
    return holds_answer_type(passage, answer_type(question))
