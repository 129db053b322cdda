"""How a note marks its parts, and who decides and does what in it: its headings (a Markdown
heading, or a line of its own ending with a colon), the lists they open (decisions, action
items, open questions), list bullets, a sentence that decides something, and an item's owner.

One reading for every reader of notes — the meeting-summary tool, the answers that list a note's
sections and the offline file summary — so that a note's "## Decisions" means the same to each.
Every pattern is anchored or bounded: each sentence is matched in time linear in its length.
"""

import re
from bisect import bisect_right

# a note's own sections: a Markdown heading, or a line of its own ending with a colon
HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+(.+?)[ \t#]*|([A-Z][\w ]{2,40}):)[ \t]*$", re.MULTILINE
)
BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# the lists a heading opens, by the heading's first words ("## Key decisions", "Action items:")
LIST_HEADINGS = {
    "decisions": re.compile(
        r"^\W*(?:key )?(?:decisions?|decided|agreements?|agreed|resolutions?|conclusions?"
        r"|outcomes?)\b",
        re.IGNORECASE,
    ),
    "action_items": re.compile(
        r"^\W*(?:action items?|actions?|to-?dos?|next steps?|follow[- ]?ups?|tasks?)\b",
        re.IGNORECASE,
    ),
    "open_questions": re.compile(
        r"^\W*(?:open questions?|open issues?|unresolved|questions?)\b", re.IGNORECASE
    ),
}
# "we decided to", "agreed on", "approved": decision language. "agreed" alone must be followed
# by what was agreed ("to", "on", "that") or end the clause: "everyone agreed the numbers looked
# healthy" is an opinion, not a decision
_DECIDES = re.compile(
    r"\b(?:decided|decides? to|agreed(?=\s+(?:to|on|upon|that)\b|\s*[,.;:!]|\s*$)|agree (?:to|on)"
    r"|approved|voted to|resolved to|opted (?:to|for)|settled on|chose|going with|signed off"
    r"|we(?:'ll| will) go with|made (?:the|a|this|that) decision)\b",
    re.IGNORECASE,
)
_DECISION_LABEL = re.compile(r"^\W*(?:decision|decided|agreed)\s*:", re.IGNORECASE)
# "… improved 3% once we decided to …": a decision in a clause that only says when, not one
# this text takes; the conjunction's subject follows it ("once the board agreed"), while "after
# the discussion we decided" is a main clause led by a phrase
_CONJUNCTION = re.compile(
    r"\b(?:once|after|when|since|because|as|if|unless|until|before|whether)\s+((?:\S+\s+){0,3})$",
    re.IGNORECASE,
)
# "we have not decided", "still to be decided": no decision taken (yet)
_NOT_TAKEN = re.compile(r"(?:\bnot|\bnever|n't|\bno|\bbe)\s+(?:yet\s+)?$", re.IGNORECASE)
_CLAUSE_CHARS = 80  # how far back from the verb the clause's opening is looked for
_QUESTION_END = re.compile(r"\?[\"'”’)]*\s*$")

_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
# "Chloe to draft …", "Chloe will send …": a named commitment
_NAMED_OWNER = re.compile(
    rf"^(?:[Aa]ction(?: item)?\s*:\s*)?({_NAME}) (?:to|will|is going to|owns) \w"
)
# "Ben migrates the billing service": an action item's owner, at its head (only in a list of
# actions: elsewhere "Revenue grows 12%" would name an owner)
_NAME_DOES = re.compile(r"^([A-Z][a-z]+) (?:[a-z]+s|to|will)\b")
# "Maria — ship the pricing page by Friday" anywhere; "Maria: ship …" in a list of actions
_NAME_DASH = re.compile(rf"^({_NAME})\s*[—–]\s*[a-z]")
_NAME_COLON = re.compile(rf"^({_NAME})\s*:\s*[a-z]")
_OWNER_LABEL = re.compile(
    rf"\b(?:[Oo]wner|[Oo]wned by|[Aa]ssigned to|[Rr]esponsible)\s*:?\s*({_NAME})\b"
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_A_DAY = (
    r"\d{4}-\d{2}-\d{2}"
    rf"|(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?"
    rf"|\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?"
)
# a deadline: "by March 20", "before October", "until Q3", "by the end of the month"
DUE = re.compile(
    rf"\b(?:by|before|due|until|on)\s+({_A_DAY}"
    rf"|(?:{_MONTHS})(?: \d{{4}})?|Q[1-4](?: \d{{4}})?"
    rf"|(?:next |this )?(?:{_WEEKDAYS})"
    r"|(?:the )?end of (?:the )?(?:week|month|quarter|sprint|day|year)"
    r"|next (?:week|month|sprint)|tomorrow|today|EOD|EOW)\b",
    re.IGNORECASE,
)
_DAY = re.compile(rf"\b(?:{_A_DAY})\b")
_PRONOUNS = frozenset({"we", "i", "you", "they", "he", "she", "it", "someone", "somebody"})
FIRST_PERSON = re.compile(r"\b(?:I'll|I will|I'm going to|I can take|I'll take)\b")


def list_named(heading: str) -> str | None:
    """The list a heading opens ("decisions", "action_items", "open_questions"), if any."""
    return next((name for name, pattern in LIST_HEADINGS.items() if pattern.match(heading)), None)


def headings(text: str) -> list[tuple[int, str | None]]:
    """Where each heading of the text starts, and the list it opens (None: another heading)."""
    return [(m.start(), list_named(m.group(1) or m.group(2))) for m in HEADING.finditer(text)]


def list_at(found: list[tuple[int, str | None]], position: int) -> str | None:
    """The list the text at `position` sits in: that of the last heading at or before it."""
    above = bisect_right([at for at, _ in found], position)
    return found[above - 1][1] if above else None


def decides(sentence: str) -> bool:
    """Whether the sentence takes a decision: "Decision: …", or decision language in a clause
    of its own, not negated ("we have not decided") and not asked."""
    if _QUESTION_END.search(sentence):
        return False
    if _DECISION_LABEL.match(sentence):
        return True
    for match in _DECIDES.finditer(sentence):
        before = sentence[max(0, match.start() - _CLAUSE_CHARS) : match.start()]
        clause = before[before.rfind(",") + 1 :]  # a comma closes a leading clause
        if not _subordinate(clause) and not _NOT_TAKEN.search(clause):
            return True
    return False


def _subordinate(clause: str) -> bool:
    """Whether the clause before a verb opens with a conjunction and its subject ("once we")."""
    found = _CONJUNCTION.search(clause)
    if found is None:
        return False
    subject = found.group(1).split()
    return not any(word.lower() in _PRONOUNS for word in subject[1:])


def dated(sentence: str) -> bool:
    """Whether the sentence sets a deadline or names a day ("by Friday", "on June 12, 2025");
    a month or a year alone ("the February numbers", "in 2021") is no date to act on."""
    return DUE.search(sentence) is not None or _DAY.search(sentence) is not None


def owner_of(said: str, speaker: str | None, *, listed: bool) -> str | None:
    """Who does it: the person named at the item's head ("Chloe to draft", "Maria — ship",
    "owner: Maya"; in a list of actions also "Ben migrates", "Ben: migrate"), else the speaker
    of "I'll …"."""
    said = BULLET.sub("", said, count=1)
    patterns = [_NAMED_OWNER, _NAME_DASH, *((_NAME_DOES, _NAME_COLON) if listed else ())]
    for pattern in patterns:
        named = pattern.match(said)
        if named and named.group(1).lower() not in _PRONOUNS:
            return named.group(1)
    if labelled := _OWNER_LABEL.search(said):
        return labelled.group(1)
    return speaker if speaker and FIRST_PERSON.search(said) else None
