"""The one sentence splitter every caller uses: where each sentence of a text starts and ends.

A sentence ends at a run of . ! ? … (closing quotes or brackets may follow) before whitespace,
at a run of 。！？, at a blank line, and before a bullet line. Keyword options adjust the rule
for callers that need it; every rule runs in linear time, whatever the input.
"""

import re
from functools import cache

_CLOSERS = r"[\"'”’)\]]*+"  # a sentence may end inside quotes or brackets: 'he said "no." Then'
_CJK_END = r"[。！？]+\s*"
_PARAGRAPH_OR_BULLET = r"\n\s*\n|\n(?=\s*[-*•]\s)"


def sentence_spans(
    text: str,
    start: int = 0,
    end: int | None = None,
    *,
    lowercase_continues: bool = False,
    semicolons: bool = False,
    line_breaks: bool = False,
) -> list[tuple[int, int]]:
    """[start, end) of each sentence (or line item) of text[start:end], whitespace trimmed, in
    order. Offsets are into `text`.

    lowercase_continues: a full stop before a lower-case word ends nothing ("e.g. the",
        "approx. ten"): a cut there would split a sentence after an abbreviation.
    semicolons: ';' ends a sentence too, so each clause of "I run sales; we ship weekly"
        stands alone.
    line_breaks: every line break ends a sentence (a chat message's lines, or an answer's
        lines without full stops), not only a blank line or a bullet.
    """
    piece = text[start:end]  # a slice, so that no rule looks outside the range
    rule = _sentence_end(lowercase_continues, semicolons, line_breaks)
    spans: list[tuple[int, int]] = []
    sentence_start = 0
    for match in rule.finditer(piece):
        _append_trimmed(piece, sentence_start, match.end(), spans)
        sentence_start = match.end()
    _append_trimmed(piece, sentence_start, len(piece), spans)
    return [(start + first, start + last) for first, last in spans]


def sentences(
    text: str,
    *,
    lowercase_continues: bool = False,
    semicolons: bool = False,
    line_breaks: bool = False,
) -> list[str]:
    """The text's sentences, whitespace trimmed, in order (options as for sentence_spans)."""
    spans = sentence_spans(
        text,
        lowercase_continues=lowercase_continues,
        semicolons=semicolons,
        line_breaks=line_breaks,
    )
    return [text[first:last] for first, last in spans]


@cache
def _sentence_end(
    lowercase_continues: bool, semicolons: bool, line_breaks: bool
) -> re.Pattern[str]:
    """What ends a sentence under these options (eight patterns at most, each compiled once)."""
    stops = ".!?…;" if semicolons else ".!?…"
    space = r"\s++(?![a-z])" if lowercase_continues else r"\s+"
    # the look-behind starts a match only at the first stop of a run, and the possessive runs
    # never give characters back: a long run of stops without a space is scanned once, not
    # once from each of its characters
    stop_end = rf"(?<![{stops}])[{stops}]++{_CLOSERS}{space}"
    line_end = r"\n" if line_breaks else _PARAGRAPH_OR_BULLET
    return re.compile(f"{stop_end}|{_CJK_END}|{line_end}")


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))
