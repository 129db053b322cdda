"""Turn whatever spans a model proposed into chunks that tile the text exactly once, in order.

Proposals may overlap, repeat, run out of range, come reversed, unsorted or not at all; the
result is always contiguous, non-empty and covers 0..len(text). Every boundary in it is a
proposed start or end (clamped to the text), possibly moved by `snap_boundary` to a nearby
paragraph, line or sentence start. Titles and summaries stay with the chunk they came from.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from shared.domain import ChunkSpan
from shared.text.boundaries import snap_boundary

SNAP_RADIUS = 200  # characters a boundary may move to reach a natural cut
MAX_JOINED_GAP = 2_000  # a longer stretch no proposal covered becomes a chunk of its own
_FIRST_WORDS_CHARS = 60
_MARKUP = re.compile(r"^[\s#>*\-•=~_`|]+")


@dataclass
class _Piece:
    start: int
    end: int
    title: str = ""
    summary: str = ""


def merge_spans(
    text: str,
    proposals: Iterable[ChunkSpan],
    *,
    snap_radius: int = SNAP_RADIUS,
    max_joined_gap: int = MAX_JOINED_GAP,
) -> list[ChunkSpan]:
    """Chunks in order, contiguous, non-empty, from 0 to len(text); [] for an empty text."""
    if not text:
        return []
    pieces = _tile(len(text), _clamped(proposals, len(text)), max_joined_gap)
    _snap(text, pieces, snap_radius)
    return [
        ChunkSpan(
            piece.start,
            piece.end,
            piece.title or first_words(text[piece.start : piece.end]) or "Untitled",
            piece.summary,
        )
        for piece in pieces
    ]


def _clamped(proposals: Iterable[ChunkSpan], length: int) -> list[_Piece]:
    """Proposals inside the text, start before end, non-empty, sorted by position."""
    pieces: list[_Piece] = []
    for proposal in proposals:
        start, end = sorted((_clamp(proposal.start, length), _clamp(proposal.end, length)))
        if start < end:
            title = " ".join(str(proposal.title or "").split())
            pieces.append(_Piece(start, end, title, " ".join(str(proposal.summary or "").split())))
    # stable: of two identical spans the one proposed first keeps its title
    return sorted(pieces, key=lambda piece: (piece.start, piece.end))


def _clamp(value: int, length: int) -> int:
    return min(max(int(value), 0), length)


def _tile(length: int, proposals: list[_Piece], max_joined_gap: int) -> list[_Piece]:
    """Pieces that cover 0..length: overlaps trimmed off the later piece, gaps filled."""
    pieces: list[_Piece] = []
    covered = 0
    for proposal in proposals:
        if proposal.end <= covered:
            continue  # inside what is already covered: a duplicate or a nested proposal
        start = max(proposal.start, covered)
        if start > covered and not _join_gap(pieces, covered, start, max_joined_gap):
            if not pieces and start <= max_joined_gap:
                start = 0  # a short stretch before the first chunk joins that chunk
            else:
                pieces.append(_Piece(covered, start))
        pieces.append(_Piece(start, proposal.end, proposal.title, proposal.summary))
        covered = proposal.end
    if covered < length and not _join_gap(pieces, covered, length, max_joined_gap):
        pieces.append(_Piece(covered, length))
    return pieces


def _join_gap(pieces: list[_Piece], start: int, end: int, max_joined_gap: int) -> bool:
    """Extend the previous piece over a short uncovered stretch; False if that is not possible."""
    if not pieces or end - start > max_joined_gap:
        return False
    pieces[-1].end = end
    return True


def _snap(text: str, pieces: list[_Piece], radius: int) -> None:
    """Move each interior boundary to a natural cut, keeping every piece non-empty."""
    for index in range(1, len(pieces)):
        previous, current = pieces[index - 1], pieces[index]
        boundary = snap_boundary(text, current.start, previous.start, current.end, radius)
        previous.end = current.start = boundary


def first_words(chunk: str) -> str:
    """A title for an untitled chunk: the first words of its first non-blank line."""
    for line in chunk.split("\n"):
        cleaned = " ".join(_MARKUP.sub("", line).split())
        if cleaned:
            return _shorten(cleaned, _FIRST_WORDS_CHARS)
    return ""


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit)
    cut = text[:space] if space > limit // 2 else text[: limit - 1]
    return cut.rstrip(" ,;:-–—") + "…"
