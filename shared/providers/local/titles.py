"""Titles for chunks: the heading, the speaker and topic, or the first words."""

import re
from bisect import bisect_right
from collections import Counter
from itertools import pairwise

from shared.providers.base import ChunkSpan
from shared.providers.local.boundaries import Boundary, Level
from shared.providers.local.text import STOP_WORDS, shorten, stem, word_set, words

MAX_TITLE_CHARS = 80
_FIRST_WORDS_CHARS = 60
# words frequent in speech that say nothing about the topic
_FILLER = word_set(
    """
    think know going thing things lot mean kind sort actually basically right way need make
    see want get one two three also even still really something anything everything maybe
    probably definitely look said tell question answer good great sure course first per
    """
)
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]\"“”—–\n]+")
_SPEAKER_PREFIX = re.compile(r"^\s*(?:\*\*|__)?[^:\n]{1,48}:(?:\*\*|__)?\s*")
_MARKUP = re.compile(r"^[\s#>*\-•=~_`|]+")


def titled_spans(
    text: str, ranges: list[tuple[int, int]], boundaries: list[Boundary]
) -> list[ChunkSpan]:
    """ChunkSpans for ranges, each titled from the structure that starts or contains it."""
    headings = [boundary for boundary in boundaries if boundary.level == Level.HEADING]
    speakers = [boundary for boundary in boundaries if boundary.level == Level.SPEAKER]
    heading_positions = [boundary.position for boundary in headings]
    speaker_positions = [boundary.position for boundary in speakers]
    parts: Counter[int] = Counter()  # chunks seen so far per heading position
    spans: list[ChunkSpan] = []
    for number, (start, end) in enumerate(ranges, start=1):
        heading = _last_at_or_before(headings, heading_positions, start)
        speaker = _last_at_or_before(speakers, speaker_positions, start)
        if speaker and heading and speaker.position < heading.position:
            speaker = None  # a turn does not continue past a heading
        chunk = text[start:end]
        title = _title(chunk, start, heading, speaker, parts, headings, end)
        if heading:
            parts[heading.position] += 1
        spans.append(ChunkSpan(start, end, shorten(title, MAX_TITLE_CHARS) or f"Part {number}"))
    return spans


def _last_at_or_before(found: list[Boundary], positions: list[int], start: int) -> Boundary | None:
    index = bisect_right(positions, start) - 1
    return found[index] if index >= 0 else None


def _title(
    chunk: str,
    start: int,
    heading: Boundary | None,
    speaker: Boundary | None,
    parts: Counter[int],
    headings: list[Boundary],
    end: int,
) -> str:
    if speaker and speaker.position == start:
        return speaker_title(speaker.label, chunk)
    if heading and heading.position == start:
        return heading.label
    if speaker:
        return speaker_title(f"{speaker.label} (cont.)", chunk)
    if heading:
        return f"{heading.label} (part {parts[heading.position] + 1})"
    inner = next((found for found in headings if start < found.position < end), None)
    return inner.label if inner else first_words(chunk)


def speaker_title(label: str, chunk: str) -> str:
    """'EXPERT 2: on pricing tiers', or the label and the first words spoken."""
    spoken = _SPEAKER_PREFIX.sub("", chunk, count=1)
    topic = key_phrase(spoken)
    return f"{label}: on {topic}" if topic else f"{label}: {first_words(spoken)}"


def key_phrase(text: str) -> str:
    """The most repeated two-word topic of a text, else its two most repeated topic words."""
    bigrams: Counter[tuple[str, str]] = Counter()
    surface: dict[tuple[str, str], str] = {}
    for clause in _CLAUSE_BREAK.split(text):
        tokens = words(clause)
        for first, second in pairwise(tokens):
            if _is_topical(first) and _is_topical(second):
                key = (stem(first), stem(second))
                bigrams[key] += 1
                surface.setdefault(key, f"{first} {second}")
    if bigrams:
        key, count = bigrams.most_common(1)[0]
        if count >= 2:
            return surface[key]
    unigrams: Counter[str] = Counter()
    first_form: dict[str, str] = {}
    for token in words(text):
        if _is_topical(token):
            unigrams[stem(token)] += 1
            first_form.setdefault(stem(token), token)
    repeated = [first_form[key] for key, count in unigrams.most_common(2) if count >= 2]
    return " and ".join(repeated)


def _is_topical(token: str) -> bool:
    return len(token) > 2 and token.isalpha() and token not in STOP_WORDS and token not in _FILLER


def first_words(chunk: str) -> str:
    """The first words of the first non-blank line, markup stripped."""
    for line in chunk.split("\n"):
        cleaned = _MARKUP.sub("", line).strip()
        if cleaned:
            return shorten(cleaned, _FIRST_WORDS_CHARS, "…")
    return ""
