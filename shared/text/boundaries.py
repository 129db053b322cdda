"""Where a chunk boundary may sit, and how natural a cut there is: the levels both chunkers
rank cuts by, and the snapping of a proposed cut to a nearby paragraph, line or sentence start."""

import re
from enum import IntEnum
from itertools import pairwise

from shared.text.sentences import sentence_spans


class BoundaryLevel(IntEnum):
    """How natural a cut at a position is; a higher level is preferred over a lower one, and
    each level is one above the next finer one (the local chunker steps down by one)."""

    NONE = 0  # no natural cut (and a text's own start or end, which never moves)
    CHAR = 1  # any character: the last resort for a text without spaces
    WORD = 2  # the start of a word
    SENTENCE = 3  # the start of a sentence inside a line
    LINE = 4  # the start of a non-blank line
    PARAGRAPH = 5  # the start of a non-blank line after a blank one
    SPEAKER = 6  # a line that opens a speaker's turn ("BOSS:", "Jane:")
    HEADING = 7  # a heading line
    START = 8  # the start of the whole text


_NON_BLANK = re.compile(r"[ \t]*\S")  # matches at the start of a line with content
_LOOKBEHIND = 64  # how far before a position a sentence's closing punctuation may start


def boundary_level(text: str, position: int) -> BoundaryLevel:
    """The level of a cut at `position` (NONE for positions 0 and len(text), which never move)."""
    if not 0 < position < len(text):
        return BoundaryLevel.NONE
    if text[position - 1] == "\n" and _NON_BLANK.match(text, position):
        return _line_level(text, position)
    if position in _sentence_starts(text, position, position):
        return BoundaryLevel.SENTENCE
    return BoundaryLevel.NONE


def snap_boundary(text: str, position: int, lower: int, upper: int, radius: int) -> int:
    """The best cut near `position`, strictly between `lower` and `upper`.

    A position already at a line start stays (the model chose a real line). Otherwise the
    nearest paragraph start within `radius` wins, then the nearest line start, then the nearest
    sentence start; with none of them in reach the position stays.
    """
    if boundary_level(text, position) >= BoundaryLevel.LINE:
        return position
    first, last = max(lower + 1, position - radius), min(upper - 1, position + radius)
    best, best_key = position, (boundary_level(text, position), 0)
    for candidate, level in _candidates(text, first, last):
        key = (level, -abs(candidate - position))
        if key > best_key:
            best, best_key = candidate, key
    return best


def _candidates(text: str, first: int, last: int) -> list[tuple[int, BoundaryLevel]]:
    """Cut positions in [first, last] with their levels."""
    found: list[tuple[int, BoundaryLevel]] = []
    newline = text.find("\n", max(0, first - 1), last)
    while newline != -1:
        if _NON_BLANK.match(text, newline + 1):
            found.append((newline + 1, _line_level(text, newline + 1)))
        newline = text.find("\n", newline + 1, last)
    found.extend((start, BoundaryLevel.SENTENCE) for start in _sentence_starts(text, first, last))
    return found


def _sentence_starts(text: str, first: int, last: int) -> list[int]:
    """Starts in [first, last] of sentences that follow another on the same line, after spaces
    or tabs only (a sentence after a line break starts a line, a stronger level)."""
    # the range ends at last + 1: a sentence starting at `last` needs its first character
    spans = sentence_spans(text, max(0, first - _LOOKBEHIND), last + 1)
    return [
        start
        for (_, end), (start, _) in pairwise(spans)
        if start >= first and not text[end:start].strip(" \t")
    ]


def _line_level(text: str, line_start: int) -> BoundaryLevel:
    """PARAGRAPH when the line before this one is blank, else LINE."""
    previous_start = text.rfind("\n", 0, line_start - 1) + 1
    blank_before = not text[previous_start : line_start - 1].strip()
    return BoundaryLevel.PARAGRAPH if blank_before else BoundaryLevel.LINE
