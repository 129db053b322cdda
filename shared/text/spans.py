"""Checks and line numbers for chunk spans over a text."""

from collections.abc import Sequence

from shared.domain import ChunkSpan


def line_range(text: str, start: int, end: int) -> tuple[int, int]:
    """1-based inclusive line numbers of the first and last character of text[start:end]."""
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"span [{start}, {end}) is outside a text of {len(text)} characters")
    first = text.count("\n", 0, start) + 1
    if end == start:
        return first, first
    # the last character may be the newline that ends its line: it still belongs to that line
    return first, first + text.count("\n", start, end - 1)


def line_ranges(text: str, spans: Sequence[ChunkSpan]) -> list[tuple[int, int]]:
    """line_range of each of `spans` (valid ones: in order and contiguous), counting each line
    once: from the start of the text for every span, a file of many chunks took time quadratic
    in its length."""
    ranges, line = [], 1  # the line the next span starts on
    for span in spans:
        last = line + text.count("\n", span.start, span.end - 1) if span.end > span.start else line
        ranges.append((line, last))
        line += text.count("\n", span.start, span.end)
    return ranges


def validate_spans(text: str, spans: Sequence[ChunkSpan]) -> None:
    """Raise ValueError unless spans are in order, contiguous, non-empty and cover the text."""
    if not text:
        if spans:
            raise ValueError("an empty text has no chunks")
        return
    if not spans:
        raise ValueError("no chunks for a non-empty text")
    position = 0
    for index, span in enumerate(spans):
        if span.start != position:
            raise ValueError(f"chunk {index} starts at {span.start}, expected {position}")
        if span.end <= span.start:
            raise ValueError(f"chunk {index} is empty or reversed: [{span.start}, {span.end})")
        position = span.end
    if position != len(text):
        raise ValueError(f"chunks end at {position}, but the text has {len(text)} characters")
