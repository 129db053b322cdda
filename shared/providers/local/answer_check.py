"""Offline call 1B: keep only the answer sentences their cited passages support (seed 001).

An answer is read as sentences, each followed by its `[Ref: N]` markers. A sentence survives when
every ref it cites is in the bundle and one of those passages contains the sentence's content
words (a stemmed overlap of at least SUPPORT_THRESHOLD). Sentences without citations are the
persona's framing (a lead-in, a refusal) and pass as they are: only cited claims are checked.
"""

from shared.providers.base import AnswerInput, CheckedAnswer
from shared.text.citations import Claim, drop_claims
from shared.text.words import content_words, stem

SUPPORT_THRESHOLD = 0.6  # share of a sentence's content words its passage must contain


def stems(text: str) -> set[str]:
    return {stem(word) for word in content_words(text)}


def support(statement: str, passage: str) -> float:
    """Share of the statement's content stems that occur in the passage (1.0 for none)."""
    wanted = stems(statement)
    if not wanted:
        return 1.0
    return len(wanted & stems(passage)) / len(wanted)


def is_supported(claim: Claim, passages: dict[int, str], *, by_words: bool = True) -> bool:
    """Every cited ref is known and (by_words) one of its passages holds the sentence's words."""
    if any(ref not in passages for ref in claim.refs):
        return False
    if not by_words:
        return True
    best = max(support(claim.statement, passages[ref]) for ref in claim.refs)
    return best >= SUPPORT_THRESHOLD


def check_answer_text(
    answer: str, passages: dict[int, str], *, by_words: bool = True
) -> CheckedAnswer:
    """The answer without unsupported cited sentences (paragraph breaks kept), and those.

    by_words=False only removes sentences citing refs that are not in `passages`."""
    kept, removed = drop_claims(
        answer, lambda claim: is_supported(claim, passages, by_words=by_words)
    )
    return CheckedAnswer(answer=kept, removed=removed)


class LocalAnswerChecker:
    """Offline 1B: word-overlap support of each cited sentence by its passage."""

    async def check_answer(self, request: AnswerInput, answer: str) -> CheckedAnswer:
        return check_answer_text(answer, request.passages)
