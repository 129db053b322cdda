"""Extractive summaries: the few sentences of a text that best carry its decisions and topic."""

from collections import Counter
from dataclasses import replace

from shared.providers.local.artisan_cut import Sentence, attributed, distinct, scored_sentences
from shared.text.words import content_words, shorten, stem

CHUNK_SUMMARY_CHARS = 240
SECTION_SUMMARY_CHARS = 300
_CENTRALITY_WEIGHT = 2.0  # a sentence sharing all its words with the rest scores +2
_SHORTLIST_EXTRA = 3  # ranked sentences looked at beyond the number wanted
# a sentence after the first must carry some signal: a summary is not padded with asides
_MIN_EXTRA_SCORE = 1.0


def chunk_summary(text: str, title: str) -> str:
    """One or two key sentences of a chunk, at most CHUNK_SUMMARY_CHARS long."""
    return key_sentences(text, title, limit=CHUNK_SUMMARY_CHARS, max_sentences=2)


def section_summary(text: str, title: str) -> str:
    """Up to three key sentences of a section, at most SECTION_SUMMARY_CHARS long."""
    return key_sentences(text, title, limit=SECTION_SUMMARY_CHARS, max_sentences=3)


def key_sentences(text: str, title: str, *, limit: int, max_sentences: int) -> str:
    """The best-ranked sentences that fit `limit`, in document order, speakers attributed."""
    ranked = ranked_sentences(text, title)
    if not ranked:
        # nothing but headings or symbols: the text itself, cut short, still says what is there
        return shorten(text, limit, "…")
    return fit_sentences(ranked, limit=limit, max_sentences=max_sentences)


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
    """Distinct sentences, best first, each scored by its signals plus how central it is."""
    sentences = scored_sentences(text, title)
    centrality = _centrality(sentences)
    rescored = [replace(item, score=item.score + centrality[item.index]) for item in sentences]
    return distinct(sorted(rescored, key=lambda item: (-item.score, item.index)))


def _centrality(sentences: list[Sentence]) -> dict[int, float]:
    """How much of each sentence's vocabulary recurs in the other sentences (0 to the weight).

    Decision words alone miss the point of plain factual prose; the sentence whose words the
    rest of the text keeps returning to is the one that states its topic.
    """
    stems_of = {item.index: {stem(word) for word in content_words(item.text)} for item in sentences}
    frequency: Counter[str] = Counter()
    for stems in stems_of.values():
        frequency.update(stems)
    others = max(len(sentences) - 1, 1)
    centrality: dict[int, float] = {}
    for index, stems in stems_of.items():
        if not stems or len(sentences) == 1:
            centrality[index] = 0.0
            continue
        shared = sum((frequency[word] - 1) / others for word in stems) / len(stems)
        centrality[index] = _CENTRALITY_WEIGHT * min(1.0, 3.0 * shared)
    return centrality
