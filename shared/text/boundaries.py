"""Where a chunk boundary may sit: paragraph starts, line starts and sentence starts."""

import re
from enum import IntEnum


class BoundaryLevel(IntEnum):
    """How natural a cut at a position is; higher is preferred."""

    NONE = 0
    SENTENCE = 1  # the start of a sentence inside a line
    LINE = 2  # the start of a non-blank line
    PARAGRAPH = 3  # the start of a non-blank line after a blank one


_NON_BLANK = re.compile(r"[ \t]*\S")  # matches at the start of a line with content
_SENTENCE_START = re.compile(r"[.!?…]+[\"'”’)\]]*[ \t]+(?=\S)")
_LOOKBEHIND = 64  # how far before a position a sentence's closing punctuation may start


def boundary_level(text: str, position: int) -> BoundaryLevel:
    """The level of a cut at `position` (NONE for positions 0 and len(text), which never move)."""
    if not 0 < position < len(text):
        return BoundaryLevel.NONE
    if text[position - 1] == "\n" and _NON_BLANK.match(text, position):
        return _line_level(text, position)
    for match in _SENTENCE_START.finditer(text, max(0, position - _LOOKBEHIND), position + 1):
        if match.end() == position:
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
    # endpos last + 1: the look-ahead needs to see the first character of the next sentence
    for match in _SENTENCE_START.finditer(text, max(0, first - _LOOKBEHIND), last + 1):
        if match.end() >= first:
            found.append((match.end(), BoundaryLevel.SENTENCE))
    return found


def _line_level(text: str, line_start: int) -> BoundaryLevel:
    """PARAGRAPH when the line before this one is blank, else LINE."""
    previous_start = text.rfind("\n", 0, line_start - 1) + 1
    blank_before = not text[previous_start : line_start - 1].strip()
    return BoundaryLevel.PARAGRAPH if blank_before else BoundaryLevel.LINE
