"""Extractive summaries: the sentences of a text that carry its decisions, figures, owners and
dates, quoted verbatim in document order; and the key-sentence ranking of journal essences."""

from collections import Counter
from dataclasses import dataclass, replace

from shared.providers.local.artisan_cut import Sentence, attributed, distinct, scored_sentences
from shared.providers.local.boundaries import line_boundaries
from shared.providers.local.informative import (
    FIRST_SENTENCE_BONUS,
    centrality,
    informative_score,
    title_stems_of,
)
from shared.text.boundaries import BoundaryLevel
from shared.text.words import shorten

SECTION_SUMMARY_CHARS = 600
SECTION_MAX_SENTENCES = 6
_SENTENCES_PER_POINT = 5  # a section gets one summary sentence per this many of its sentences
_MIN_POINT_SCORE = 1.5  # a sentence after the first must say something: no padding with asides
_SAME_BLOCK_PENALTY = 1.0  # a second point under one sub-heading says less than a new one
_SHORTLIST_PER_POINT = 8  # the best-scored points looked at per point wanted
_CENTRALITY_WEIGHT = 2.0  # a sentence sharing all its words with the rest scores +2
_SHORTLIST_EXTRA = 3  # ranked sentences looked at beyond the number wanted
# a sentence after the first must carry some signal: a summary is not padded with asides
_MIN_EXTRA_SCORE = 1.0
_BULLET = ("- ", "* ", "• ")


@dataclass(frozen=True)
class Point:
    """A sentence of a section as a summary candidate: under which sub-heading, how telling."""

    block: int  # the sub-heading it sits under (0: before any)
    order: int  # position in the section
    sentence: Sentence
    score: float


def section_summary(text: str, title: str) -> str:
    """The section's most informative sentences (2 to 6, one per five it has), verbatim and in
    document order, speakers attributed, at most SECTION_SUMMARY_CHARS long."""
    points = section_points(text, title)
    if not points:
        # nothing but headings or symbols: the text itself, cut short, still says what is there
        return shorten(text, SECTION_SUMMARY_CHARS, "…")
    wanted = min(SECTION_MAX_SENTENCES, max(2, 1 + len(points) // _SENTENCES_PER_POINT))
    chosen = pick_points(points, wanted, SECTION_SUMMARY_CHARS)
    if not chosen:  # even the best sentence alone is too long: cut it at a word boundary
        best = max(points, key=lambda p: (p.score, -p.order))
        return shorten(attributed([best.sentence]), SECTION_SUMMARY_CHARS, "…")
    return attributed([point.sentence for point in chosen])


def section_points(text: str, title: str) -> list[Point]:
    """Every sentence of the section (headings left out) with its informativeness, by block."""
    headings = {
        b.position: b.label for b in line_boundaries(text) if b.level == BoundaryLevel.HEADING
    }
    starts = [0, *[cut for cut in headings if cut > 0]]
    found: list[tuple[int, Sentence, frozenset[str]]] = []
    for block, start in enumerate(starts):
        end = starts[block + 1] if block + 1 < len(starts) else len(text)
        heading = headings.get(start, "")
        stems = title_stems_of(f"{title} {heading}")
        for sentence in scored_sentences(text[start:end], heading or title):
            found.append((block, _without_bullet(sentence), stems))
    central = centrality([sentence.text for _, sentence, _ in found])
    return [
        Point(
            block=block,
            order=order,
            sentence=sentence,
            score=informative_score(sentence.text, title_stems=stems)
            + central[order]
            + (FIRST_SENTENCE_BONUS if order == 0 else 0.0),
        )
        for order, (block, sentence, stems) in enumerate(found)
    ]


def pick_points(points: list[Point], wanted: int, limit: int) -> list[Point]:
    """The best points, spread over the blocks, that fit `limit` when joined; document order."""
    ranked = sorted(_distinct_points(points), key=lambda p: (-p.score, p.order))
    # the best, then only points that say something; the spread only reorders the front runners
    remaining = ranked[:1] + [p for p in ranked[1:] if p.score >= _MIN_POINT_SCORE]
    remaining = remaining[: _SHORTLIST_PER_POINT * wanted]
    chosen: list[Point] = []
    per_block: Counter[int] = Counter()
    while remaining and len(chosen) < wanted:
        best = max(
            remaining,
            key=lambda p: (p.score - _SAME_BLOCK_PENALTY * per_block[p.block], -p.order),
        )
        remaining.remove(best)
        candidate = sorted([*chosen, best], key=lambda p: p.order)
        if len(attributed([p.sentence for p in candidate])) <= limit:
            chosen = candidate
            per_block[best.block] += 1
    return chosen


def _distinct_points(points: list[Point]) -> list[Point]:
    """Points without repeated sentences (figures ignored): a refrain is one point at most."""
    kept = {id(s) for s in distinct([p.sentence for p in points])}
    return [point for point in points if id(point.sentence) in kept]


def _without_bullet(sentence: Sentence) -> Sentence:
    """A list item's sentence without its bullet (the rest is still the source's own words)."""
    text = sentence.text
    while text.startswith(_BULLET):
        text = text[2:].lstrip()
    return replace(sentence, text=text) if text != sentence.text else sentence


def fit_sentences(ranked: list[Sentence], *, limit: int, max_sentences: int) -> str:
    """Take ranked sentences while they fit `limit`; join them in document order."""
    chosen: list[Sentence] = []
    for sentence in ranked[: max_sentences + _SHORTLIST_EXTRA]:
        if len(chosen) == max_sentences or (chosen and sentence.score < _MIN_EXTRA_SCORE):
            break
        candidate = sorted([*chosen, sentence], key=lambda item: item.index)
        if len(attributed(candidate)) <= limit:
            chosen = candidate
    if not chosen:  # even the best sentence alone is too long: cut it at a word boundary
        return shorten(attributed(ranked[:1]), limit, "…")
    return attributed(chosen)


def ranked_sentences(text: str, title: str) -> list[Sentence]:
    """Distinct sentences, best first, each scored by its signals plus how central it is
    (the journal's essences of a turn)."""
    sentences = scored_sentences(text, title)
    central = _centrality(sentences)
    rescored = [replace(item, score=item.score + central[item.index]) for item in sentences]
    return distinct(sorted(rescored, key=lambda item: (-item.score, item.index)))


def _centrality(sentences: list[Sentence]) -> dict[int, float]:
    """How central each sentence is to the text (informative.centrality), by index."""
    scores = centrality([item.text for item in sentences], _CENTRALITY_WEIGHT)
    return {item.index: score for item, score in zip(sentences, scores, strict=True)}
