"""An extractive meeting summary (seed 004): decisions, action items with owners and due dates,
and open questions, each item quoting the transcript line it came from.

Deterministic and linear in the transcript's length: every sentence (a transcript's line is one)
is read once, matched against a few fixed patterns, and put in at most one section — an action
before a decision before a question. An item's text is the sentence without its speaker label;
its quote is the exact sentence as the chunk holds it, so the citation resolves to the passage.
"""

import re
from dataclasses import dataclass, field
from uuid import UUID

from shared.text.notes import (
    BULLET,
    DUE,
    FIRST_PERSON,
    HEADING,
    decides,
    headings,
    list_at,
    owner_of,
)
from shared.text.sentences import sentence_spans

MAX_ITEMS_PER_SECTION = 25  # a document stays readable, and bounded, whatever the transcript
MIN_WORDS = 3  # "Yes?" is not an open question
SECTIONS = ("decisions", "action_items", "open_questions")
SECTION_TITLES = {
    "decisions": "Decisions",
    "action_items": "Action items",
    "open_questions": "Open questions",
}
NOT_STATED = "not stated"

# "Anna:" or "[00:12] Anna Berg:" opening a line: who speaks
_SPEAKER = re.compile(
    r"^\s*(?:\[[^\]\n]{0,20}\]\s*)?([A-Z][\w.'-]{0,30}(?: [A-Z][\w.'-]{0,30})?):\s+"
)
_LABEL = re.compile(
    r"^\s*(?:decision|decided|action(?: item)?|todo|to-do|open question|question)\s*:\s*",
    re.IGNORECASE,
)
_ACTION_LABEL = re.compile(r"^\s*(?:action(?: item)?|todo|to-do)\s*:", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_OPEN_LABEL = re.compile(
    r"\b(?:open question|unresolved|TBD|to be decided|still unclear|not sure)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Passage:
    """A stored chunk of the file: its id, text and first line."""

    chunk_id: UUID
    text: str
    line_start: int
    char_start: int = 0


@dataclass
class Item:
    section: str
    text: str
    quote: str  # exact substring of the chunk's text
    chunk_id: UUID
    line: int
    char_start: int
    char_end: int
    owner: str | None = None
    due: str | None = None
    speaker: str | None = None


@dataclass
class MeetingSummary:
    items: list[Item] = field(default_factory=list)

    def section(self, name: str) -> list[Item]:
        return [item for item in self.items if item.section == name]


def summarise_meeting(passages: list[Passage]) -> MeetingSummary:
    """Decisions, action items and open questions, in transcript order within each section: a
    transcript's lines by what they say, a note's items by the heading they sit under."""
    summary = MeetingSummary()
    counts = dict.fromkeys(SECTIONS, 0)
    for passage in passages:
        found = headings(passage.text)
        for start, end in sentence_spans(passage.text, line_breaks=True):
            item = classify_sentence(passage, start, end, under=list_at(found, start))
            if item is not None and counts[item.section] < MAX_ITEMS_PER_SECTION:
                counts[item.section] += 1
                summary.items.append(item)
    order = {name: index for index, name in enumerate(SECTIONS)}
    summary.items.sort(key=lambda item: order[item.section])  # stable: transcript order stays
    return summary


def classify_sentence(
    passage: Passage, start: int, end: int, *, under: str | None = None
) -> Item | None:
    """The item this sentence is, if any: what the heading it sits under says (`under`), else an
    action before a decision before a question."""
    quote = passage.text[start:end]
    speaker_match = _SPEAKER.match(quote)
    speaker = speaker_match.group(1) if speaker_match else None
    said = BULLET.sub("", quote[speaker_match.end() :] if speaker_match else quote)
    if len(said.split()) < MIN_WORDS or HEADING.match(quote):
        return None
    section = under or _section_of(said)
    if section is None:
        return None
    line = passage.line_start + passage.text.count("\n", 0, start)
    item = Item(
        section=section,
        text=_LABEL.sub("", said).strip(),
        quote=quote,
        chunk_id=passage.chunk_id,
        line=line,
        char_start=passage.char_start + start,
        char_end=passage.char_start + end,
        speaker=speaker,
    )
    if section == "action_items":
        item.owner = owner_of(said, speaker, listed=True)
        due = DUE.search(said)
        item.due = due.group(1) if due else None
    return item


def _section_of(said: str) -> str | None:
    asks = said.rstrip().endswith("?")
    commits = (
        _ACTION_LABEL.match(said) or owner_of(said, None, listed=False) or FIRST_PERSON.search(said)
    )
    if commits and not asks:
        return "action_items"
    if decides(said):  # a figure is no decision: "revenue grew 12%" decides nothing
        return "decisions"
    return "open_questions" if asks or _OPEN_LABEL.search(said) else None


def meeting_date(passages: list[Passage]) -> str | None:
    """The first ISO date of the transcript's opening lines: when the meeting was."""
    head = passages[0].text[:500] if passages else ""
    found = _ISO_DATE.search(head)
    return found.group(0) if found else None
