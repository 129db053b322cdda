"""What a file's offline summary leads with: its decisions, figures, actions with their owners,
and dates, read from the sections' own text — a note's own lists first (the items under
"## Decisions", "## Action items"), then what each sentence says.

A sentence joins one group, the first that fits. A decision decides something: an item of a
Decisions list, or decision language in a clause of its own (shared.text.notes.decides). So
"revenue grew 12%" is a figure wherever it stands, even in a Decisions list, and "pricing
improved 3% once we decided to …" reports a figure; "we decided to raise $3M" is a decision that
carries one. Then an action and its owner ("Tom will prepare …", "Maria — ship …"), a figure
with its unit, a date or deadline. Linear in the text: each sentence is read once, against
bounded patterns; each group keeps its few best points (heapq, not a sort of them all).
"""

import heapq
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from shared.providers.local.artisan_cut import scored_sentences
from shared.providers.local.informative import METRIC_WORDS, has_figure, informative_score
from shared.text.notes import BULLET, dated, decides, headings, list_at, owner_of
from shared.text.words import STOP_WORDS, words

GROUPS = ("decisions", "figures", "actions", "dates")
GROUP_TITLES = {
    "decisions": "Decisions",
    "figures": "Figures",
    "actions": "Actions and owners",
    "dates": "Dates and deadlines",
    "others": "Other points",  # what no group holds, after them
}
GROUP_CAPS = {"decisions": 5, "figures": 4, "actions": 4, "dates": 3}
_SHORTLIST = 8  # per point a group shows: the best-scored looked at for ones that differ
_SAME_WORDS = 0.7  # a point sharing this share of its words with a chosen one repeats it
LISTED_BONUS = 2.0  # an item of the note's own list over a sentence that only sounds like one
_MIN_WORDS = 3
# "Region: EMEA | Q1 2024: 4.2M | …": a table's row as the extractor labels it, one line
_ROW = re.compile(r"^[^\n|:]+:[^\n|]*(?:\|[^\n|]+)+$", re.MULTILINE)
# who attended is not what happened
_ROSTER = re.compile(r"^\W*(?:attendees|present|participants|agenda|absent)\s*:", re.IGNORECASE)
# "revenue grew 12%", "margin was 71%": a sentence that reports a measure, not one that sets it
_MEASURED = re.compile(
    r"\b(?:was|were|is|are|grew|rose|fell|increased|decreased|declined|dropped|reached|hit|held"
    r"|stood|came in|improved|totall?ed|averaged|up|down)\b",
    re.IGNORECASE,
)
# "Revenue will grow", "This will change": a subject that is no person owns nothing
_NOT_PEOPLE = METRIC_WORDS | STOP_WORDS


@dataclass(frozen=True)
class KeyPoint:
    group: str
    order: int  # position in the file
    text: str  # the sentence as quoted, its speaker named
    score: float
    said: str = ""  # the sentence without its speaker

    @property
    def key(self) -> str:
        """What it says without speaker, figures or punctuation: a refrain is one point."""
        return point_key(self.said or self.text)


def point_key(text: str) -> str:
    return re.sub(r"[\d\W]+", " ", text.lower()).strip()


def key_points(sections: Sequence[tuple[str, str]]) -> list[KeyPoint]:
    """Every sentence of the (title, text) sections that is a decision, figure, action or date,
    in document order."""
    found: list[KeyPoint] = []
    for title, text in sections:
        for listed, block in _blocks(text):
            rows = _ROW.findall(block)  # a spreadsheet's row is a point of its own
            prose = _ROW.sub("", block) if rows else block
            said = [(row.strip(), None) for row in rows] + [
                (sentence.text, sentence.speaker) for sentence in scored_sentences(prose, title)
            ]
            for sentence, speaker in said:
                point = _point(sentence, speaker, title, listed, len(found))
                if point is not None:
                    found.append(point)
    return found


def _point(
    sentence: str, speaker: str | None, title: str, listed: str | None, order: int
) -> KeyPoint | None:
    said = as_point(sentence, title)
    group = group_of(said, listed, speaker) if said else None
    if not said or not group:
        return None
    quoted = f"{speaker}: {said}" if speaker else said
    score = informative_score(said) + (LISTED_BONUS if listed else 0.0)
    return KeyPoint(group, order, quoted, score, said)


def group_of(said: str, listed: str | None, speaker: str | None) -> str | None:
    """The group a sentence leads in, if any; `listed` is the note's list it sits in."""
    if listed == "decisions":
        return "figures" if reports_figure(said) else "decisions"
    if listed == "action_items":
        return "actions"
    if decides(said):
        return "decisions"
    owner = owner_of(said, speaker, listed=False)
    if owner is not None and owner.split()[0].lower() not in _NOT_PEOPLE:
        return "actions"
    if has_figure(said):
        return "figures"
    return "dates" if dated(said) else None


def reports_figure(said: str) -> bool:
    """A measure reported ("Gross margin was 71%"), deciding nothing."""
    return has_figure(said) and not decides(said) and _MEASURED.search(said) is not None


def lead_points(points: list[KeyPoint], budget: int) -> dict[str, list[KeyPoint]]:
    """Each group's best points that fit `budget` as rendered (a heading per group, a line per
    point), taken in turns — every group's first, then every group's second — so a long list of
    decisions leaves room for the figures; each group in document order, empty groups left out."""
    queues = {group: _best(points, group) for group in GROUPS}
    chosen: dict[str, list[KeyPoint]] = {group: [] for group in GROUPS}
    used = 0
    for rank in range(max(GROUP_CAPS.values())):
        for group, queue in queues.items():
            if rank >= len(queue):
                continue
            cost = point_cost(queue[rank].text) + (0 if chosen[group] else heading_cost(group))
            if used + cost <= budget:
                chosen[group].append(queue[rank])
                used += cost
    return {g: sorted(found, key=lambda p: p.order) for g, found in chosen.items() if found}


def heading_cost(group: str) -> int:
    return len(heading_line(group)) + 2  # the blank line before it


def heading_line(group: str) -> str:
    return f"### {GROUP_TITLES[group]}"


def point_cost(text: str) -> int:
    return len(text) + 3  # "\n- "


def _best(points: list[KeyPoint], group: str) -> list[KeyPoint]:
    """The group's best-scored points, best first, none repeating another: not a refrain (the
    same words, other figures) nor the same sentence about another company."""
    seen: set[str] = set()
    distinct = []
    for point in points:
        if point.group == group and point.key not in seen:
            seen.add(point.key)
            distinct.append(point)
    cap = GROUP_CAPS[group]
    shortlist = heapq.nsmallest(_SHORTLIST * cap, distinct, key=lambda p: (-p.score, p.order))
    chosen: list[tuple[KeyPoint, set[str]]] = []
    for point in shortlist:
        found = set(point.key.split())
        if len(chosen) < cap and not any(_alike(found, other) for _, other in chosen):
            chosen.append((point, found))
    return [point for point, _ in chosen]


def _alike(first: set[str], second: set[str]) -> bool:
    return len(first & second) >= _SAME_WORDS * max(len(first | second), 1)


def _blocks(text: str) -> Iterator[tuple[str | None, str]]:
    """The text cut at its headings, each piece with the list its heading opens and without its
    heading line (a line of prose right under a heading would be read as part of it)."""
    found = headings(text)
    starts = {at for at, _ in found}
    cuts = [0, *(at for at, _ in found if at > 0), len(text)]
    for start, end in pairwise(cuts):
        listed = list_at(found, start)
        if start in starts:
            line_end = text.find("\n", start, end)
            start = end if line_end < 0 else line_end + 1
        yield listed, text[start:end]


def as_point(sentence: str, title: str = "") -> str | None:
    """The sentence as a point (its bullet off, its section's title line off when the title
    line ran into it), or None for a fragment, a roster of attendees or a question."""
    said = BULLET.sub("", sentence, count=1)
    if title and said.startswith(title) and len(said) > len(title):
        said = said[len(title) :].lstrip(" :—-")
    if len(words(said)) < _MIN_WORDS or _ROSTER.match(said) or said.rstrip().endswith("?"):
        return None
    return said
