"""What makes a sentence worth a summary: a decision, a figure, an owner, a date.

Offline summaries quote a section's most informative sentences verbatim. A sentence scores by
what a reader of the summary would look for — "we decided / agreed / will", figures with a
currency, a percent or a unit (more when they measure a business metric such as runway or
margin), a named owner of an action, a date or deadline, a risk — and a little by how central
it is to its text; greetings, questions and asides score low. Pure functions, linear time.
"""

import re
from collections import Counter

from shared.providers.local.artisan_cut import (
    COMMITMENT_WORDS,
    DECISION_WORDS,
    aside_penalty,
    capitalised_terms,
)
from shared.text.words import STOP_WORDS, content_words, stem, word_set, words

DECISION_WEIGHT = 3.0
COMMITMENT_WEIGHT = 2.0
FIGURE_WEIGHT, MORE_FIGURES_WEIGHT = 2.0, 0.75
METRIC_WEIGHT = 1.0  # each metric word ("runway", "margin") beside a figure
OWNER_WEIGHT = 1.5
DATE_WEIGHT = 1.5
RISK_WEIGHT = 1.0
NAME_WEIGHT = 0.3
TITLE_WEIGHT = 0.5
CENTRALITY_WEIGHT = 1.0
FIRST_SENTENCE_BONUS = 0.5

_DECISIONS = DECISION_WORDS | word_set("resolved voted signed finalised finalized confirmed")
_COMMITMENTS = COMMITMENT_WORDS | word_set("shall plan plans planned going due owner owns")
_RISKS = word_set("risk risks threat concern blocker churn downside exposure problem issue")
METRIC_WORDS = word_set(
    """
    runway burn cash revenue arr mrr margin margins churn retention nrr cac ltv valuation cap
    price prices pricing budget headcount bookings pipeline profit loss ebitda raise round
    funding seed series salary cost costs spend growth conversion customers users seats
    """
)
_UNITS = (
    r"%|percent\b|(?:k|m|bn|mm)\b|(?:thousand|million|billion|dollars?|euros?|pounds?|usd|eur|gbp)\b"
    r"|(?:months?|weeks?|days?|years?|quarters?|hours?|seats?|customers?|users?|engineers?|people"
    r"|employees|hires|accounts|deals|points?|x)\b"
)
_FIGURE = re.compile(
    rf"[$€£¥]\s?\d[\d,.]*(?:\s?(?:k|m|bn|mm|thousand|million|billion)\b)?"
    rf"|\b\d[\d,.]*\s?(?:{_UNITS})",
    re.IGNORECASE,
)
_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty"
    r"|hundred|dozen)\s+(?:\w+\s+)?(?:[a-z]+s)\b",
    re.IGNORECASE,
)
_BARE_NUMBER = re.compile(r"\b\d[\d,.]*\b")
# month names only when capitalised: "may" is mostly a verb
_MONTH = (
    r"Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
)
_DATE = re.compile(
    rf"\b(?:{_MONTH})\b|\bQ[1-4]\b|\b(?:19|20)\d\d\b|\b\d{{1,2}}[/.-]\d{{1,2}}(?:[/.-]\d{{2,4}})?\b"
    r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
    r"|\b(?:next|this|last)\s+(?:week|month|quarter|year)\b"
    r"|\bend of (?:the )?(?:week|month|quarter|year)\b"
    r"|\b(?:by|before|until|due)\s+(?:the\s+)?(?:end|[0-9])",
)
_NAME = r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
_OWNER = re.compile(
    rf"(?P<who>{_NAME})\s+(?:will|owns|leads|drives|handles|takes|is responsible|to [a-z]+)\b"
    rf"|\b(?:owner|owned by|led by|assigned to|responsible:?|action:?)\s*:?\s*{_NAME}"
    rf"|\({_NAME}\)"
)
_NOT_OWNERS = STOP_WORDS | word_set("everyone nobody someone each both all the team board company")
_QUESTION_END = re.compile(r"\?[\"'”’)]*$")


def informative_score(sentence: str, *, title_stems: frozenset[str] = frozenset()) -> float:
    """How much a reader of a summary learns from the sentence (before centrality)."""
    tokens = words(sentence)
    token_set = set(tokens)
    score = 0.0
    if token_set & _DECISIONS:
        score += DECISION_WEIGHT
    elif token_set & _COMMITMENTS:
        score += COMMITMENT_WEIGHT
    figures = len(_FIGURE.findall(sentence)) + len(_NUMBER_WORD.findall(sentence))
    if figures:
        score += FIGURE_WEIGHT + MORE_FIGURES_WEIGHT * min(figures - 1, 2)
        score += METRIC_WEIGHT * min(len(token_set & METRIC_WORDS), 2)
    elif _BARE_NUMBER.search(sentence):
        score += 0.5
    if has_owner(sentence):
        score += OWNER_WEIGHT
    if _DATE.search(sentence):
        score += DATE_WEIGHT
    if token_set & _RISKS:
        score += RISK_WEIGHT
    score += NAME_WEIGHT * min(capitalised_terms(sentence), 3)
    score += TITLE_WEIGHT * min(len({stem(t) for t in token_set} & title_stems), 2)
    score -= aside_penalty(sentence, len(tokens))
    return score - (1.5 if _QUESTION_END.search(sentence.rstrip()) else 0.0)


def has_owner(sentence: str) -> bool:
    """Whether a named person owns something in the sentence ("Tom will prepare…",
    "owner: Maya", "(Lena)")."""
    for match in _OWNER.finditer(sentence):
        who = match.group("who")
        if who is None or who.split()[0].lower() not in _NOT_OWNERS:
            return True
    return False


def has_figure(sentence: str) -> bool:
    """A number with its currency, percent or unit ("$3M", "71%", "14 months"): a figure."""
    return _FIGURE.search(sentence) is not None


def title_stems_of(title: str) -> frozenset[str]:
    return frozenset(stem(word) for word in content_words(title))


def centrality(texts: list[str], weight: float = CENTRALITY_WEIGHT) -> list[float]:
    """How much of each text's vocabulary recurs in the others, 0 to `weight`: plain factual
    prose states its topic in the sentence whose words the rest keeps returning to."""
    stems_of = [{stem(word) for word in content_words(text)} for text in texts]
    frequency: Counter[str] = Counter()
    for found in stems_of:
        frequency.update(found)
    others = max(len(texts) - 1, 1)
    scores = []
    for found in stems_of:
        if not found or len(texts) == 1:
            scores.append(0.0)
            continue
        shared = sum((frequency[word] - 1) / others for word in found) / len(found)
        scores.append(weight * min(1.0, 3.0 * shared))
    return scores
