"""Questions that ask for a list a note keeps under a heading of its own — its decisions, its
action items, its open questions ("Which decisions did we take at the leadership sync?", "List
the action items"): answered with that section's items, each quoted and cited, in the note's
order. Scoring sentences by the question's words finds none of them: the word that asks
("decisions") is the heading's, not the items'.

A question that also names a topic ("What did we decide about pricing?") gets the items of the
section that speak of it; words that name the note itself (its title, "leadership sync") are no
topic."""

import re
from dataclasses import dataclass

from shared.providers.local.answer_check import stems
from shared.providers.local.quotes import Candidate
from shared.text.notes import LIST_HEADINGS

MAX_ITEMS = 10


@dataclass(frozen=True)
class ListKind:
    asks: re.Pattern[str]  # the question asks for this list
    heading: re.Pattern[str]  # a section that holds it (shared.text.notes: as every reader)
    words: frozenset[str]  # the stems that ask, which are no topic


def _kind(asks: str, listed: str) -> ListKind:
    pattern = re.compile(asks, re.IGNORECASE)
    return ListKind(pattern, LIST_HEADINGS[listed], frozenset(stems(asks)))


KINDS = (
    _kind(
        r"\b(action items?|actions?|to-?dos?|next steps?|follow[- ]?ups?|tasks?|owners?)\b",
        "action_items",
    ),
    _kind(
        r"\b(open questions?|open issues?|unresolved|questions? (?:remain|left|open))\b",
        "open_questions",
    ),
    _kind(
        r"\b(decisions?|decided?|decide|agreed|agree|agreements?|resolved|conclusions?)\b",
        "decisions",
    ),
)
# words that frame the request, or name the meeting rather than a topic
_FRAMING = frozenset(
    stems("list give show tell what which who were was did do we our take took make made all")
    | stems("meeting sync call notes note summary minutes")
)


def section_items(question: str, found: list[Candidate], named: str) -> list[Candidate]:
    """The items of the list the question asks for, from the sections that hold it; `named` is
    what names the notes themselves (titles, file names), which is no topic. None when the
    question asks for no such list or no passage has one."""
    kind = next((kind for kind in KINDS if kind.asks.search(question)), None)
    if kind is None:
        return []
    items = [c for c in found if c.title and kind.heading.search(c.title)]
    topic = stems(question) - kind.words - _FRAMING - stems(named)
    if topic:
        items = [c for c in items if stems(c.text) & topic]
    return sorted(items, key=lambda c: (c.rank, c.start))[:MAX_ITEMS]
