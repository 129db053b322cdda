"""Whose words a transcript's sentence is: "our gross margin" is the asker's, not the one an
interviewed expert gives for the company they ran.

A transcript's turns open with an upper-case speaker label at a line's start ("EXPERT 2: ",
"BOSS: ", "MARIA LOPEZ: "); upper case only, because "Decision: " or "Note: " opening a line of
notes names no speaker. The asker is the boss (the user). Any other labelled speaker speaks of
their own world ("we grew 40%" at their company), so a question about ours ("our", "my", "we")
is answered from the asker's own records whenever they answer it.
"""

import re
from bisect import bisect_right

# bounded runs split by single spaces: linear on any line
_LABEL = re.compile(
    r"^[ \t]*(?P<who>[A-Z][A-Z0-9.'-]*(?: [A-Z0-9][A-Z0-9.'-]*){0,3}):[ \t]", re.MULTILINE
)
_ASKER = frozenset({"BOSS", "USER", "ME"})
_FIRST_PERSON = re.compile(r"\b(?:our|ours|my|mine|we|us)\b", re.IGNORECASE)


class Speakers:
    """The speaker labels of one passage, to find whose turn a sentence sits in."""

    def __init__(self, text: str, title: str = "") -> None:
        found = list(_LABEL.finditer(text))
        self._starts = [m.start() for m in found]
        self._names = [m.group("who") for m in found]
        opening = _LABEL.match(title)  # a chunk cut mid-turn is titled by its speaker
        self._before_first = opening.group("who") if opening else ""

    def at(self, position: int) -> str:
        """The speaker whose turn holds `position`, or "" outside any labelled turn."""
        index = bisect_right(self._starts, position)
        return self._names[index - 1] if index else self._before_first


def asks_about_ours(question: str) -> bool:
    return bool(_FIRST_PERSON.search(question))


def is_third_party(speaker: str) -> bool:
    """Whether a labelled speaker is someone other than the asker."""
    return bool(speaker) and speaker not in _ASKER
