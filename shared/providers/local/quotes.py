"""Which sentences of the sources answer a question, and whether any does (offline call 1A).

Each sentence is scored by the share of the question's content words (stemmed, weighted by
rarity among the candidates) it holds. A sentence that holds the kind of answer the question
asks for (answer_types: a date for "when", a number for "how many", ...) ranks above one that
does not. The question is answerable only when the best sentence is evidence: it holds enough of
the question's words, the names the question is about, and an answer of the asked kind. A
question is never evidence — for itself or for another question.
"""

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from shared.providers.local.answer_check import stems
from shared.text.answer_types import (
    AnswerType,
    answer_type,
    could_answer,
    holds_answer_type,
)
from shared.text.sentences import sentence_spans
from shared.text.words import stem, word_set, words

MIN_COVERAGE = 0.25  # share of the question's (weighted) content words a sentence must contain
TYPE_BONUS = 0.25  # a sentence holding the asked kind of answer over one that does not
CLOSE_TO_BEST = 0.2  # sentences this far below the best one still qualify
MAX_SENTENCES, PER_SOURCE = 3, 2
_MIN_WORDS, _MAX_CHARS = 4, 600
# words that frame a request rather than say what it is about ("tell me about ...")
_FRAMING = frozenset(
    map(stem, word_set("tell explain describe know remind give show find please wonder recall"))
)
_HEADING = re.compile(r"^\s*#+\s.*$|^\s*\|.*$", re.MULTILINE)
# a journal turn's speaker labels: "User: ", "Boss: " and the personas' lower-case names
_SPEAKER = re.compile(r"^[ \t]*(?:User|Boss|[a-z]+): +", re.MULTILINE)
_NEW_SPEAKER = re.compile(r"\n(?=(?:User|Boss|[a-z]+): )")


@dataclass(frozen=True)
class Candidate:
    ref: int
    rank: int  # position of the ref in the bundle: retrieval order breaks ties
    start: int  # position in its passage: quotes from one passage keep document order
    text: str  # verbatim from the passage


@dataclass(frozen=True)
class Scored:
    score: float  # coverage, plus TYPE_BONUS when it holds the asked kind of answer
    coverage: float
    candidate: Candidate


def sentences_of(passages: dict[int, str]) -> list[Candidate]:
    """The quotable sentences of passages given in rank order (headings, tables and questions
    left out: a question answers nothing)."""
    found = []
    for rank, (ref, text) in enumerate(passages.items()):
        blanked = _HEADING.sub(lambda m: " " * len(m.group(0)), text)
        for start, end in _spans(blanked):
            sentence = text[start:end]
            if _is_question(sentence):
                continue
            if len(words(sentence)) >= _MIN_WORDS and len(sentence) <= _MAX_CHARS:
                found.append(Candidate(ref, rank, start, sentence))
    return found


def _spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans; a journal turn's lines ("User: …", "gunnar: …") end a sentence even
    without a full stop (a hard-wrapped paragraph's lines do not)."""
    cuts = [0, *(m.start() + 1 for m in _NEW_SPEAKER.finditer(text)), len(text)]
    return [
        span for start, end in pairwise(cuts)
        for span in sentence_spans(text, _after_speaker(text, start, end), end)
    ]  # fmt: skip


def _after_speaker(text: str, start: int, end: int) -> int:
    """Where a line's words begin: past its speaker's label ("User: "), which is not quoted."""
    label = _SPEAKER.match(text, start, end)
    return label.end() if label else start


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().rstrip("\"'”’)").endswith("?")


def scored_sentences(question: str, found: list[Candidate]) -> list[Scored]:
    """Every candidate with its score, best first (ties: retrieval order, document order)."""
    wanted = stems(question) - _FRAMING
    if not wanted or not found:
        return []
    kind = answer_type(question)
    sentence_stems = [stems(c.text) for c in found]
    df = Counter(s for group in sentence_stems for s in group & wanted)
    weight = {s: math.log(1 + (len(found) + 1) / (1 + df[s])) for s in wanted}
    total = sum(weight.values())
    scored = []
    for candidate, group in zip(found, sentence_stems, strict=True):
        coverage = sum(weight[s] for s in group & wanted) / total
        typed = kind is not AnswerType.ANY and holds_answer_type(_spoken(candidate.text), kind)
        scored.append(Scored(coverage + (TYPE_BONUS if typed else 0.0), coverage, candidate))
    return sorted(scored, key=lambda s: (-s.score, s.candidate.rank, s.candidate.start))


def is_evidence(question: str, best: Scored) -> bool:
    """Whether the best sentence answers the question: a quarter of its words, most of the names
    it is about, and (for a typed question) an answer of the asked kind."""
    # a higher bar on the share of words (0.5) refused as many answerable questions as
    # unanswerable ones on SQuAD 2.0's tune half: words alone do not tell them apart
    if best.coverage < MIN_COVERAGE:
        return False
    return could_answer(question, _spoken(best.candidate.text))


def _spoken(sentence: str) -> str:
    """A journal line without its speaker's label (a name that answers no 'who')."""
    return _SPEAKER.sub("", sentence, count=1)


def best_sentences(question: str, found: list[Candidate]) -> list[Candidate]:
    """The sentences that answer the question, best first: the best one, then others within
    CLOSE_TO_BEST of it (at most PER_SOURCE from one source); none when the best is no
    evidence."""
    scored = scored_sentences(question, found)
    if not scored or not is_evidence(question, scored[0]):
        return []
    floor = max(MIN_COVERAGE, scored[0].score - CLOSE_TO_BEST)
    chosen: list[Candidate] = []
    per_source: Counter[int] = Counter()
    for entry in scored:
        if entry.score < floor or len(chosen) == MAX_SENTENCES:
            break
        if per_source[entry.candidate.ref] < PER_SOURCE:
            chosen.append(entry.candidate)
            per_source[entry.candidate.ref] += 1
    return chosen
