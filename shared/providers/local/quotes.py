"""Which sentences of the sources answer a question, and whether any does (offline call 1A).

Each sentence is scored by the share of the question's content words (stemmed, weighted by
rarity among the candidates) it holds. A sentence that holds the kind of answer the question
asks for (answer_types: a date for "when", a number for "how many", ...) ranks above one that
does not. The question is answerable only when the best sentence is evidence: it holds enough of
the question's words, the names the question is about, and an answer of the asked kind. A
question is never evidence — for itself or for another question. A sentence is quoted only when
it names the entities the question names (entities.py: itself, or through its section's title),
so a competitor's price is never quoted as another's. For a question that asks for advice or an
opinion, the words that ask ("should", "think", "recommend") say nothing about the topic: the
sentences must hold half of the topic's words, and the decisions on record come first. For a
question about ours ("our gross margin"), an interviewed expert's figures are their company's:
the asker's own records answer it whenever they do (speakers.py).
"""

import math
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from shared.providers.local.answer_check import stems
from shared.providers.local.artisan_cut import COMMITMENT_WORDS, DECISION_WORDS
from shared.providers.local.speakers import Speakers, asks_about_ours, is_third_party
from shared.text.advice import OPINION_WORDS, asks_for_advice
from shared.text.answer_types import (
    AnswerType,
    answer_type,
    could_answer,
    holds_answer_type,
)
from shared.text.entities import (
    Entity,
    names_another,
    names_the_entities,
    question_entities,
)
from shared.text.sentences import sentence_spans
from shared.text.words import stem, word_set, words

MIN_COVERAGE = 0.25  # share of the question's (weighted) content words a sentence must contain
TYPE_BONUS = 0.25  # a sentence holding the asked kind of answer over one that does not
CLOSE_TO_BEST = 0.2  # sentences this far below the best one still qualify
MAX_SENTENCES, PER_SOURCE = 3, 2
ADVICE_MIN_COVERAGE = 0.5  # an advice question's topic words a quoted record must hold
DECISION_BONUS = 0.1  # for an advice question, a decision on record over a plain fact
_MIN_WORDS, _MAX_CHARS = 4, 600
# words that frame a request rather than say what it is about ("tell me about ...")
_FRAMING = frozenset(
    map(stem, word_set("tell explain describe know remind give show find please wonder recall"))
)
_OPINION = frozenset(map(stem, OPINION_WORDS))
_DECIDED = DECISION_WORDS | COMMITMENT_WORDS
_HEADING = re.compile(r"^\s*#+\s.*$|^\s*\|.*$", re.MULTILINE)
_SECTION_TITLE = re.compile(r"^[ \t]*#{1,6}[ \t]+(?P<title>\S.*?)[ \t#]*$", re.MULTILINE)
_BULLET = re.compile(r"[-*•][ \t]+")
# "It was commissioned by Odo": the sentence speaks of what the one before it named
_PRONOUN_OPENING = re.compile(r"(?:It|Its|They|Their|He|His|She|Her|This|These|Those)\b")
# a journal turn's speaker labels: "User: ", "Boss: " and the personas' lower-case names
_SPEAKER = re.compile(r"^[ \t]*(?:User|Boss|[a-z]+): +", re.MULTILINE)
_NEW_SPEAKER = re.compile(r"\n(?=(?:User|Boss|[a-z]+): )")


@dataclass(frozen=True)
class Candidate:
    ref: int
    rank: int  # position of the ref in the bundle: retrieval order breaks ties
    start: int  # position in its passage: quotes from one passage keep document order
    text: str  # verbatim from the passage
    title: str = ""  # the heading it sits under in its passage, else the passage's title
    follows: str = ""  # for a sentence that opens with a pronoun, the one whose subject it takes
    speaker: str = ""  # the transcript speaker whose turn it sits in (speakers.py)


@dataclass(frozen=True)
class Scored:
    score: float  # coverage, plus TYPE_BONUS when it holds the asked kind of answer
    coverage: float
    candidate: Candidate


def sentences_of(passages: dict[int, str], titles: dict[int, str] | None = None) -> list[Candidate]:
    """The quotable sentences of passages given in rank order (headings, tables and questions
    left out: a question answers nothing; a list item without its bullet), each with the
    heading it sits under, else its passage's title from `titles`."""
    found = []
    for rank, (ref, text) in enumerate(passages.items()):
        blanked = _HEADING.sub(lambda m: " " * len(m.group(0)), text)
        headings = [(m.start(), m.group("title")) for m in _SECTION_TITLE.finditer(text)]
        heading_starts = [at for at, _ in headings]
        subject, section = "", 0  # the last sentence not opening with a pronoun, and where
        speakers = Speakers(text, (titles or {}).get(ref, ""))
        for start, end in _spans(blanked):
            if bullet := _BULLET.match(text, start, end):
                start = bullet.end()
            sentence = text[start:end]
            above = bisect_left(heading_starts, start)
            if above != section:  # a pronoun does not reach back past a heading
                subject, section = "", above
            continued = bool(_PRONOUN_OPENING.match(sentence))
            follows = subject if continued else ""
            subject = subject if continued else sentence
            if _is_question(sentence):
                continue
            if len(words(sentence)) >= _MIN_WORDS and len(sentence) <= _MAX_CHARS:
                title = headings[above - 1][1] if above else _title(titles, ref)
                speaker = speakers.at(start)
                found.append(Candidate(ref, rank, start, sentence, title, follows, speaker))
    return found


def _title(titles: dict[int, str] | None, ref: int) -> str:
    """A passage's title, unless it is only its first words cut short (no heading of it)."""
    title = (titles or {}).get(ref, "")
    return "" if title.endswith("…") else title


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
    advice = asks_for_advice(question)
    wanted = stems(question) - _FRAMING - (_OPINION if advice else frozenset())
    if not wanted or not found:
        return []
    kind = answer_type(question)
    # what to do about a topic: a record under a heading that names it is about it
    sentence_stems = [stems(f"{c.title} {c.text}" if advice else c.text) for c in found]
    df = Counter(s for group in sentence_stems for s in group & wanted)
    weight = {s: math.log(1 + (len(found) + 1) / (1 + df[s])) for s in wanted}
    total = sum(weight.values())
    scored = []
    for candidate, group in zip(found, sentence_stems, strict=True):
        coverage = sum(weight[s] for s in group & wanted) / total
        typed = kind is not AnswerType.ANY and holds_answer_type(_spoken(candidate.text), kind)
        bonus = TYPE_BONUS if typed else 0.0
        if advice and _DECIDED & set(words(candidate.text)):
            bonus += DECISION_BONUS
        scored.append(Scored(coverage + bonus, coverage, candidate))
    return sorted(scored, key=lambda s: (-s.score, s.candidate.rank, s.candidate.start))


def is_evidence(question: str, best: Scored) -> bool:
    """Whether the best sentence answers the question: a quarter of its words, most of the names
    it is about (its section's title may name them, when it names nobody else), and (for a
    typed question) an answer of the asked kind."""
    # a higher bar on the share of words (0.5) refused as many answerable questions as
    # unanswerable ones on SQuAD 2.0's tune half: words alone do not tell them apart
    if best.coverage < MIN_COVERAGE:
        return False
    spoken, title = _spoken(best.candidate.text), best.candidate.title
    # a sentence's capitalised first word that the question says too is its topic, not another
    # name: "Gross margin was 71%." under "Q2 METRICS" answers "What was gross margin in Q2?"
    if title and names_another(spoken, question_entities(question), f"{title} {question}"):
        title = ""
    return could_answer(question, spoken, named_by=title)


def _names_them(asked: list[Entity], candidate: Candidate) -> bool:
    spoken = _spoken(candidate.text)
    return names_the_entities(asked, spoken, candidate.title, follows=candidate.follows)


def _spoken(sentence: str) -> str:
    """A journal line without its speaker's label (a name that answers no 'who')."""
    return _SPEAKER.sub("", sentence, count=1)


def best_sentences(question: str, found: list[Candidate]) -> list[Candidate]:
    """The sentences that answer the question, best first: the best one, then others within
    CLOSE_TO_BEST of it (at most PER_SOURCE from one source), each naming the question's
    entities; none when the best sentence, or the best that names them, is no evidence."""
    scored = scored_sentences(question, found)
    if not scored or not is_evidence(question, scored[0]):
        return []
    asked = question_entities(question)
    scored = [entry for entry in scored if _names_them(asked, entry.candidate)]
    if not scored or not is_evidence(question, scored[0]):
        return []
    if asks_about_ours(question):  # the asker's own records answer for "our", when they do
        own = [entry for entry in scored if not is_third_party(entry.candidate.speaker)]
        if own and is_evidence(question, own[0]):
            scored = own
    advice = asks_for_advice(question)
    least = ADVICE_MIN_COVERAGE if advice else MIN_COVERAGE
    if advice:  # a record that shares a word or two with the question is no answer to it
        scored = [entry for entry in scored if entry.coverage >= least]
    if not scored:
        return []
    floor = max(least, scored[0].score - CLOSE_TO_BEST)
    chosen: list[Candidate] = []
    per_source: Counter[int] = Counter()
    for entry in scored:
        if entry.score < floor or len(chosen) == MAX_SENTENCES:
            break
        if per_source[entry.candidate.ref] < PER_SOURCE:
            chosen.append(entry.candidate)
            per_source[entry.candidate.ref] += 1
    return chosen
