"""Extractive Artisan Cut of a chunk: key sentences, a 50-150 character decision arc, salience."""

import math
import re
from bisect import bisect_right
from dataclasses import dataclass

from shared.domain import ArtisanCut
from shared.providers.local.boundaries import line_boundaries
from shared.text.boundaries import BoundaryLevel
from shared.text.sentences import sentence_spans
from shared.text.words import content_words, shorten, stem, word_set, words

ESSENCE_MAX_CHARS = 600
ARC_MIN_CHARS = 50
ARC_MAX_CHARS = 150
ARC_FILLER = "short note with no decision, risk or figure stated"
_SHORT_TEXT_WORDS = 40
_DENSITY_SCALE = 16.0  # signals per 100 words at which salience is about two-thirds up

DECISION_WORDS = word_set(
    """
    decide decided decides decision decisions chose choose chosen choosing opt opted settle
    settled agree agreed conclude concluded commit committed commitment approve approved reject
    rejected pivot pivoted launch launched switch switched adopt adopted cancel cancelled hire
    """
)
_ADVICE = word_set(
    """
    should must recommend recommended recommendation recommends suggest suggested advise advice
    propose proposed ought priority priorities prioritize plan plans planned strategy focus goal
    target threshold need
    """
)
_RISK = word_set(
    """
    risk risks risky threat danger concern concerns worried churn lose losing loss fail failure
    problem issue blocker downside exposure regret regretted mistake
    """
)
COMMITMENT_WORDS = word_set("will won't deadline promise guarantee definitely must")
_RATIONALE = word_set("because therefore reason hence thus why trade-off tradeoff")
GREETING = re.compile(
    r"\b(?:hi|hello|hey|thanks|thank you|good (?:morning|afternoon|evening)|welcome|"
    r"nice to (?:meet|see)|great question|bye|cheers)\b",
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.])[-+]?[$€£]?\d[\d,]*(?:\.\d+)?%?[kKmMbB]?")
_SPEAKER_LABEL = re.compile(r"^\s*(?:\*\*|__)?(?P<label>[A-Z][\w.'’ -]{0,30}?)(?:\*\*|__)?:\s+")
_LEADING_FILLER = re.compile(
    r"^(?:(?:well|so|honestly|basically|actually|look|okay|ok|yes|yeah|right|and|but|"
    r"i think(?: that)?|i believe(?: that)?|to be honest|you know|in short|frankly)[,\s]+)+",
    re.IGNORECASE,
)
_SOFT_WORDS = re.compile(r"\b(?:the|a|an|really|very|just|quite|simply|that)\s+", re.IGNORECASE)
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s|^\s*[=\-~^*+]{3,}\s*$", re.MULTILINE)
_TITLE_SUFFIX = re.compile(r"\s*\((?:part \d+|cont\.)\)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text: its position, its words, its key-sentence score and its speaker."""

    index: int
    text: str
    score: float
    speaker: str | None = None


def artisan_cut(text: str, title: str) -> ArtisanCut:
    """Essence (key sentences in order), decision arc (50-150 chars) and salience (1-10)."""
    sentences = scored_sentences(text, title)
    essence = essence_of(sentences) or shorten(text, ESSENCE_MAX_CHARS) or title
    return ArtisanCut(
        chunk_essence=essence,
        decision_arc_summary=decision_arc(sentences, title),
        salience_score=salience(text),
    )


def scored_sentences(text: str, title: str) -> list[Sentence]:
    """The chunk's sentences (headings dropped), each with its speaker and a score."""
    title_stems = {stem(word) for word in content_words(title)}
    turns = [found for found in line_boundaries(text) if found.level == BoundaryLevel.SPEAKER]
    turn_starts = [found.position for found in turns]
    spans = [
        (start, end) for start, end in sentence_spans(text) if not _is_heading(text[start:end])
    ]
    scored: list[Sentence] = []
    for index, (start, end) in enumerate(spans):
        turn = bisect_right(turn_starts, start) - 1
        speaker = turns[turn].label if turn >= 0 else None
        sentence = " ".join(_without_label(text[start:end], speaker).split())
        if sentence:
            score = _sentence_score(sentence, title_stems, index, len(spans))
            scored.append(Sentence(index, sentence, score, speaker))
    return scored


def _sentence_score(sentence: str, title_stems: set[str], index: int, count: int) -> float:
    tokens = words(sentence)
    signal = (
        2.0 * sum(token in DECISION_WORDS for token in tokens)
        + 1.5 * sum(token in _ADVICE or token in _RISK for token in tokens)
        + 1.0 * sum(token in COMMITMENT_WORDS or token in _RATIONALE for token in tokens)
    )
    score = min(signal, 8.0) + 0.75 * min(len(NUMBER.findall(sentence)), 3)
    score += 0.4 * min(capitalised_terms(sentence), 3)
    score += 0.8 * min(sum(stem(token) in title_stems for token in set(tokens)), 3)
    score += 1.0 if index == 0 else 0.3 if index == count - 1 else 0.0
    return score - aside_penalty(sentence, len(tokens)) - (0.5 if sentence.endswith("?") else 0.0)


def aside_penalty(sentence: str, word_count: int) -> float:
    """What a greeting, a fragment or a run-on costs a sentence as a key sentence."""
    penalty = 2.0 if GREETING.search(sentence) else 0.0
    if word_count < 5:
        penalty += 1.5
    elif word_count > 45:
        penalty += 1.0
    return penalty


def capitalised_terms(sentence: str) -> int:
    """Names and proper terms: capitalised words that do not start the sentence."""
    return sum(1 for word in sentence.split()[1:] if word[:1].isupper() and word.lower() != "i")


def essence_of(sentences: list[Sentence]) -> str:
    """The top 2-4 sentences in their original order, at most ESSENCE_MAX_CHARS long."""
    if not sentences:
        return ""
    keep = 2 if len(sentences) <= 6 else 3 if len(sentences) <= 15 else 4
    ranked = distinct(sorted(sentences, key=lambda item: (-item.score, item.index)))
    chosen = sorted(ranked[:keep], key=lambda item: item.index)
    while len(chosen) > 1 and len(attributed(chosen)) > ESSENCE_MAX_CHARS:
        chosen.remove(min(chosen, key=lambda item: (item.score, -item.index)))
    return shorten(attributed(chosen), ESSENCE_MAX_CHARS, "…")


def attributed(sentences: list[Sentence]) -> str:
    """Sentences joined, each change of speaker marked with the speaker's label."""
    parts: list[str] = []
    previous: str | None = None
    for sentence in sentences:
        if sentence.speaker and sentence.speaker != previous:
            parts.append(f"{sentence.speaker}: {sentence.text}")
        else:
            parts.append(sentence.text)
        previous = sentence.speaker
    return " ".join(parts)


def distinct(sentences: list[Sentence]) -> list[Sentence]:
    """Sentences without repeats (ignoring figures), first occurrence kept."""
    seen: set[str] = set()
    distinct: list[Sentence] = []
    for sentence in sentences:
        key = re.sub(r"[\d\W]+", " ", sentence.text.lower()).strip()
        if key not in seen:
            seen.add(key)
            distinct.append(sentence)
    return distinct


def decision_arc(sentences: list[Sentence], title: str) -> str:
    """A 50-150 character search key: the topic, then the key clauses of the best sentences."""
    head = shorten(_TITLE_SUFFIX.sub(" ", title).strip(), 60)
    separator = " — " if ":" in head else ": "
    ranked = distinct(sorted(sentences, key=lambda item: (-item.score, item.index)))
    clauses = [clause for item in ranked if (clause := pointer_clause(item.text))]
    arc = head + separator if head else ""
    for number, clause in enumerate(clauses):
        if number and len(arc) >= ARC_MIN_CHARS + 30:
            break  # two clauses say enough; more only pads a short arc
        arc += ("; " if number else "") + clause
    arc = shorten(arc, ARC_MAX_CHARS).rstrip(" :;—")
    if len(arc) < ARC_MIN_CHARS:
        arc = shorten(f"{arc} · {ARC_FILLER}" if arc else ARC_FILLER, ARC_MAX_CHARS)
    return arc


def pointer_clause(sentence: str) -> str:
    """A sentence pressed into a pointer: filler openers, articles and end punctuation dropped."""
    clause = _LEADING_FILLER.sub("", sentence)
    clause = _SOFT_WORDS.sub("", clause).strip().rstrip(".!?…;:")
    if clause[:2].isalpha() and clause[:2] != clause[:2].upper():
        clause = clause[0].lower() + clause[1:]  # mid-arc, a clause is no sentence start
    return clause


def salience(text: str) -> int:
    """1-10 from the density of decision, commitment and risk signals and of numbers."""
    tokens = words(text)
    signal = (
        2.0 * sum(token in DECISION_WORDS for token in tokens)
        + 1.2 * sum(token in _ADVICE for token in tokens)
        + 1.5 * sum(token in _RISK for token in tokens)
        + 1.0 * sum(token in COMMITMENT_WORDS for token in tokens)
        + 0.5 * sum(token in _RATIONALE for token in tokens)
        + 0.4 * min(len(NUMBER.findall(text)), 6)
        - 1.0 * len(GREETING.findall(text))
    )
    # signals per 100 words; a very short text is not allowed a high density by its brevity
    density = 100.0 * max(signal, 0.0) / max(len(tokens), _SHORT_TEXT_WORDS)
    return 1 + round(9 * (1 - math.exp(-density / _DENSITY_SCALE)))


def _without_label(sentence: str, speaker: str | None) -> str:
    """The sentence without the label of the speaker it is attributed to."""
    match = _SPEAKER_LABEL.match(sentence)
    if match and speaker and match.group("label").strip() == speaker:
        return sentence[match.end() :]
    return sentence


def _is_heading(sentence: str) -> bool:
    """A markdown or underlined heading, or a short Title Case line without end punctuation."""
    if _HEADING_LINE.search(sentence):
        return True
    stripped = sentence.strip()
    short = len(stripped.split()) <= 6 and "\n" not in stripped
    return short and not stripped.endswith((".", "!", "?", ":")) and stripped == stripped.title()
