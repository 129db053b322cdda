"""Titles for chunks: the heading, the speaker and topic, or the first words."""

import re
from bisect import bisect_right
from collections import Counter
from itertools import pairwise

from shared.domain import ChunkSpan
from shared.providers.local.boundaries import Boundary
from shared.text.boundaries import BoundaryLevel
from shared.text.words import STOP_WORDS, shorten, stem, word_set, words

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
    titler = _Titler(text, boundaries)
    return [
        ChunkSpan(start, end, shorten(titler.title(start, end), MAX_TITLE_CHARS) or f"Part {n}")
        for n, (start, end) in enumerate(ranges, start=1)
    ]


class _Titler:
    """Titles chunks in document order, counting the parts of each split section."""

    def __init__(self, text: str, boundaries: list[Boundary]) -> None:
        self.text = text
        self.headings = [found for found in boundaries if found.level == BoundaryLevel.HEADING]
        self.speakers = [found for found in boundaries if found.level == BoundaryLevel.SPEAKER]
        self._heading_starts = [found.position for found in self.headings]
        self._speaker_starts = [found.position for found in self.speakers]
        self._parts: Counter[int] = Counter()  # chunks titled so far per heading

    def title(self, start: int, end: int) -> str:
        heading = self._last(self.headings, self._heading_starts, start)
        speaker = self._last(self.speakers, self._speaker_starts, start)
        if speaker and heading and speaker.position < heading.position:
            speaker = None  # a turn does not continue past a heading
        if heading:
            self._parts[heading.position] += 1
        chunk = self.text[start:end]
        if speaker and speaker.position == start:
            return speaker_title(speaker.label, _without_label(chunk))
        if heading and heading.position == start:
            return heading.label
        if speaker:
            return speaker_title(f"{speaker.label} (cont.)", chunk)
        if heading:
            return f"{heading.label} (part {self._parts[heading.position]})"
        return self._first_heading_inside(start, end) or first_words(chunk)

    def _first_heading_inside(self, start: int, end: int) -> str:
        """The heading of the section a short preamble was merged into, if any."""
        index = bisect_right(self._heading_starts, start)
        inside = index < len(self.headings) and self._heading_starts[index] < end
        return self.headings[index].label if inside else ""

    @staticmethod
    def _last(found: list[Boundary], starts: list[int], position: int) -> Boundary | None:
        index = bisect_right(starts, position) - 1
        return found[index] if index >= 0 else None


def speaker_title(label: str, spoken: str) -> str:
    """'EXPERT 2: on pricing tiers', or the label and the first words spoken."""
    topic = key_phrase(spoken)
    return f"{label}: on {topic}" if topic else f"{label}: {first_words(spoken)}"


def _without_label(chunk: str) -> str:
    """The chunk without the 'LABEL:' that opens its speaker turn."""
    return _SPEAKER_PREFIX.sub("", chunk, count=1)


def key_phrase(text: str) -> str:
    """The most repeated two-word topic of a text, else its two most repeated topic words."""
    bigrams: Counter[tuple[str, str]] = Counter()
    surface: dict[tuple[str, str], str] = {}
    for clause in _CLAUSE_BREAK.split(text):
        tokens = words(clause)
        for first, second in pairwise(tokens):
            if is_topical(first) and is_topical(second):
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
        if is_topical(token):
            unigrams[stem(token)] += 1
            first_form.setdefault(stem(token), token)
    repeated = [first_form[key] for key, count in unigrams.most_common(2) if count >= 2]
    return " and ".join(repeated)


def is_topical(token: str) -> bool:
    """A word that can name a topic: not a stop word, filler, number or fragment."""
    return len(token) > 2 and token.isalpha() and token not in STOP_WORDS and token not in _FILLER


def first_words(chunk: str) -> str:
    """The first words of the first non-blank line, markup stripped."""
    for line in chunk.split("\n"):
        cleaned = _MARKUP.sub("", line).strip()
        if cleaned:
            return shorten(cleaned, _FIRST_WORDS_CHARS, "…")
    return ""
