"""Sliding windows over a long text (seed 000), and which window decides where they overlap."""

import math
from collections.abc import Sequence
from dataclasses import replace

from shared.domain import ChunkSpan

WINDOW_CHARS = 20_000
OVERLAP_CHARS = 3_000


def window_bounds(
    length: int, window: int = WINDOW_CHARS, overlap: int = OVERLAP_CHARS
) -> list[tuple[int, int]]:
    """[start, end) of windows of `window` characters, each starting `overlap` before the
    previous one ends (0, 17000, 34000, ... by default); the last ends at `length`."""
    if not 0 <= overlap < window:
        raise ValueError(f"overlap {overlap} must be at least 0 and less than window {window}")
    if length <= 0:
        return []
    bounds: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + window, length)
        bounds.append((start, end))
        if end == length:
            return bounds
        start += window - overlap


def shifted(spans: Sequence[ChunkSpan], offset: int) -> list[ChunkSpan]:
    """Spans moved by `offset`: window-relative offsets made absolute."""
    return [replace(span, start=span.start + offset, end=span.end + offset) for span in spans]


def owned_spans(
    bounds: Sequence[tuple[int, int]], per_window: Sequence[Sequence[ChunkSpan]], tail: int
) -> list[ChunkSpan]:
    """The absolute spans each window is trusted with, in position order.

    Seed 000 drops chunks that end in the last `tail` characters of a non-final window: the next
    window sees that stretch with context on both sides. Symmetrically, a window does not keep
    chunks ending before that point, which belong to the window before it. So every chunk end
    is decided by exactly one window, and each window's zone ends `tail` before its own end.
    A window's first chunk starts where the window was cut, not where its topic starts; when
    it is kept, it starts instead where the previous windows' kept chunks end.
    """
    if len(bounds) != len(per_window):
        raise ValueError(f"{len(bounds)} windows but {len(per_window)} lists of spans")
    kept: list[ChunkSpan] = []
    last = len(bounds) - 1
    for index, ((window_start, window_end), spans) in enumerate(
        zip(bounds, per_window, strict=True)
    ):
        lower = bounds[index - 1][1] - tail if index > 0 else -math.inf
        upper = window_end - tail if index < last else math.inf
        covered = max((span.end for span in kept), default=0)
        for span in spans:
            if not lower < span.end <= upper:
                continue
            if index > 0 and span.start == window_start and covered < window_start:
                span = replace(span, start=covered)
            kept.append(span)
    return sorted(kept, key=lambda span: (span.start, span.end))
