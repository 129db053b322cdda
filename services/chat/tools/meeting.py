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
_DECISION = re.compile(
    r"\b(?:decision|decided|decide to|agreed|agree to|approved|we(?:'ll| will) go with|"
    r"settled on|chose|going with|signed off)\b",
    re.IGNORECASE,
)
_ACTION_LABEL = re.compile(r"^\s*(?:action(?: item)?|todo|to-do)\s*:", re.IGNORECASE)
# "Chloe to draft …", "Chloe will send …", "I'll migrate …": a named or first-person commitment
_NAMED_OWNER = re.compile(
    r"^(?:[Aa]ction(?: item)?\s*:\s*)?([A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r" (?:to|will|is going to|owns) \w"
)
# "Ben migrates the billing service": an action item's owner, at its head
_NAME_DOES = re.compile(r"^([A-Z][a-z]+) (?:[a-z]+s|to|will)\b")
# a note's own sections: a Markdown heading, or a line of its own ending with a colon
_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+(.+?)[ \t#]*|([A-Z][\w ]{2,40}):)[ \t]*$", re.MULTILINE
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SECTION_HEADINGS = {
    "decisions": re.compile(r"(?:key )?(?:decisions?|decided|agreements?|agreed)\b", re.I),
    "action_items": re.compile(r"(?:action items?|actions?|to-?dos?|next steps?|tasks?)\b", re.I),
    "open_questions": re.compile(r"(?:open questions?|open issues?|questions?|unresolved)\b", re.I),
}
_PRONOUNS = frozenset({"we", "i", "you", "they", "he", "she", "it", "someone", "somebody"})
_FIRST_PERSON = re.compile(r"\b(?:I'll|I will|I'm going to|I can take|I'll take)\b")
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_DUE = re.compile(
    r"\b(?:by|before|due|until|on)\s+("
    r"\d{4}-\d{2}-\d{2}"
    rf"|(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?"
    rf"|\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?"
    rf"|(?:next |this )?(?:{_WEEKDAYS})"
    r"|(?:the )?end of (?:the )?(?:week|month|quarter|sprint|day)"
    r"|next (?:week|month|sprint)|tomorrow|today|EOD|EOW)\b",
    re.IGNORECASE,
)
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
        headings = [
            (m.start(), _section_named(m.group(1))) for m in _HEADING.finditer(passage.text)
        ]
        for start, end in sentence_spans(passage.text, line_breaks=True):
            under = next((name for at, name in reversed(headings) if at <= start), None)
            item = classify_sentence(passage, start, end, under=under)
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
    said = _BULLET.sub("", quote[speaker_match.end() :] if speaker_match else quote)
    if len(said.split()) < MIN_WORDS or _HEADING.match(quote):
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
        item.owner = owner_of(said, speaker)
        due = _DUE.search(said)
        item.due = due.group(1) if due else None
    return item


def _section_of(said: str) -> str | None:
    asks = said.rstrip().endswith("?")
    named = _NAMED_OWNER.match(said)
    someone = named is not None and named.group(1).lower() not in _PRONOUNS
    commits = _ACTION_LABEL.match(said) or someone or _FIRST_PERSON.search(said)
    if commits and not asks:
        return "action_items"
    if _DECISION.search(said) and not asks:
        return "decisions"
    return "open_questions" if asks or _OPEN_LABEL.search(said) else None


def owner_of(said: str, speaker: str | None) -> str | None:
    """Who committed: the person named ("Chloe to draft", "Ben migrates"), else the speaker of
    "I'll …"."""
    named = _NAMED_OWNER.match(said) or _NAME_DOES.match(said)
    if named and named.group(1).lower() not in _PRONOUNS:
        return named.group(1)
    return speaker if _FIRST_PERSON.search(said) else None


def _section_named(heading: str) -> str | None:
    """The section a note's heading opens ("## Decisions", "Action items:"), if any."""
    return next(
        (name for name, pattern in _SECTION_HEADINGS.items() if pattern.match(heading)), None
    )


def meeting_date(passages: list[Passage]) -> str | None:
    """The first ISO date of the transcript's opening lines: when the meeting was."""
    head = passages[0].text[:500] if passages else ""
    found = _ISO_DATE.search(head)
    return found.group(0) if found else None
