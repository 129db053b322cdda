"""Structure-aware logical chunking: cut at headings, then speaker turns, paragraphs, sentences."""

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from itertools import pairwise

from shared.domain import ChunkSpan
from shared.providers.cpu import run_sized
from shared.providers.local.boundaries import Boundary, line_boundaries
from shared.providers.local.summary import section_summary
from shared.providers.local.titles import titled_spans
from shared.text.boundaries import BoundaryLevel
from shared.text.sentences import sentence_spans
from shared.text.spans import validate_spans

DEFAULT_TARGET_WORDS = 350
# sizes are in words, but text without spaces still needs a size: count 8 characters as a word
CHARS_PER_WORD = 8
_WORD_CUT = re.compile(r"\s+")


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    weight: float
    lead: BoundaryLevel  # the kind of boundary the piece starts at


class LocalChunker:
    """Offline chunker: logical sections of a few hundred words, covering the text exactly."""

    def __init__(self, target_words: int = DEFAULT_TARGET_WORDS) -> None:
        self.target_words = target_words

    async def chunk(self, text: str) -> list[ChunkSpan]:
        return await run_sized(len(text), chunk_text, text, self.target_words)


def chunk_text(text: str, target_words: int = DEFAULT_TARGET_WORDS) -> list[ChunkSpan]:
    """Spans in order, contiguous and non-empty, from 0 to len(text); [] for an empty text.

    Each span carries a title and a short extractive summary of its text.
    """
    if not text:
        return []
    planner = _Planner(text, target_words)
    pieces = planner.split(0, len(text), BoundaryLevel.HEADING, BoundaryLevel.START)
    spans = titled_spans(text, [(piece.start, piece.end) for piece in pieces], planner.boundaries)
    validate_spans(text, spans)
    return [
        replace(span, summary=section_summary(text[span.start : span.end], span.title))
        for span in spans
    ]


class _Planner:
    """Splits a range at its strongest boundaries, then packs the pieces toward the target."""

    def __init__(self, text: str, target_words: int) -> None:
        self.text = text
        self.target = max(1.0, float(target_words))
        self.minimum = 0.4 * self.target
        self.maximum = 2.0 * self.target
        self.boundaries: list[Boundary] = line_boundaries(text)
        self._positions = [boundary.position for boundary in self.boundaries]
        self._levels = {boundary.position: boundary.level for boundary in self.boundaries}

    def split(
        self, start: int, end: int, level: BoundaryLevel, lead: BoundaryLevel
    ) -> list[_Piece]:
        weight = self._weight(start, end)
        # headings always cut (sections stay apart); finer levels only cut what is too long
        if weight <= self.maximum and level != BoundaryLevel.HEADING:
            return [_Piece(start, end, weight, lead)]
        cuts = self._cuts(start, end, level)
        if not cuts:
            if level == BoundaryLevel.CHAR:
                return [_Piece(start, end, weight, lead)]
            return self.split(start, end, BoundaryLevel(level - 1), lead)
        pieces: list[_Piece] = []
        finer = BoundaryLevel(max(level - 1, BoundaryLevel.CHAR))
        for index, (piece_start, piece_end) in enumerate(pairwise([start, *cuts, end])):
            piece_lead = lead if index == 0 else self._levels.get(piece_start, level)
            pieces.extend(self.split(piece_start, piece_end, finer, piece_lead))
        return self._pack(pieces, level)

    def _weight(self, start: int, end: int) -> float:
        piece = self.text[start:end]
        return max(len(piece.split()), len(piece) / CHARS_PER_WORD)

    def _cuts(self, start: int, end: int, level: BoundaryLevel) -> list[int]:
        """Positions strictly inside (start, end) where a piece may begin, at `level` or above."""
        if level >= BoundaryLevel.LINE:
            first = bisect_right(self._positions, start)
            last = bisect_left(self._positions, end)
            candidates = self._positions[first:last]
            return [position for position in candidates if self._levels[position] >= level]
        if level == BoundaryLevel.CHAR:
            step = max(1, int(self.target * CHARS_PER_WORD))
            return list(range(start + step, end, step))
        if level == BoundaryLevel.SENTENCE:
            # a full stop before a lower-case word is an abbreviation more often than an end
            spans = sentence_spans(self.text, start, end, lowercase_continues=True)
            return [sentence_start for sentence_start, _ in spans[1:]]
        matches = _WORD_CUT.finditer(self.text, start, end)
        return [match.end() for match in matches if start < match.end() < end]

    def _pack(self, pieces: list[_Piece], level: BoundaryLevel) -> list[_Piece]:
        packed: list[_Piece] = []
        current = pieces[0]
        for piece in pieces[1:]:
            if self._joins(current, piece, level):
                current = _merge(current, piece)
            else:
                self._emit(packed, current)
                current = piece
        self._emit(packed, current)
        return packed

    def _joins(self, current: _Piece, following: _Piece, level: BoundaryLevel) -> bool:
        # a chunk that began at a weaker boundary never swallows a stronger one after it
        if current.lead < following.lead or current.weight + following.weight > self.maximum:
            return False
        if level == BoundaryLevel.HEADING:
            return current.weight < self.minimum  # only a tiny section joins the next one
        return current.weight + following.weight <= self.target or current.weight < self.minimum

    def _emit(self, packed: list[_Piece], piece: _Piece) -> None:
        """Append a piece; a tiny one is folded into the previous piece when it fits."""
        if packed and piece.weight < self.minimum:
            previous = packed[-1]
            fits = previous.weight + piece.weight <= self.maximum
            if fits and previous.lead >= piece.lead:
                packed[-1] = _merge(previous, piece)
                return
        packed.append(piece)


def _merge(first: _Piece, second: _Piece) -> _Piece:
    return _Piece(first.start, second.end, first.weight + second.weight, first.lead)
