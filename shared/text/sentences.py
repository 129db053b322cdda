"""Sentences of a text: where each sentence (or line item) starts and ends."""

import re

_SENTENCE_END = re.compile(r"(?:[.!?…]+[\"'”’)\]]*\s+|[。！？]+\s*|\n\s*\n|\n(?=\s*[-*•]\s))")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence or line item, whitespace trimmed, in order."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        _append_trimmed(text, start, match.end(), spans)
        start = match.end()
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))
