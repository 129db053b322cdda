"""The entities a question names, and whether a sentence speaks of them or of a neighbour.

An entity is a run of capitalised words past a sentence's first ("Acme", "Maya Chen",
"Competitor B"), by form, not by meaning: no model, linear time. A run that holds a one-letter or
number label ("Competitor B", "Tier 2", "Series A") is named only by the whole phrase — "Competitor
A" is its neighbour, not a mention; any other run is named by any of its words of three letters or
more ("Chen" names "Maya Chen"). Months, weekdays, stop words and period labels ("Q2") are not
entities, and a name the question is addressed to ("…, Vlad?") is not what it is about.
"""

import math
import re
from dataclasses import dataclass

from shared.text.words import STOP_WORDS, WORD_PATTERN, stem, word_set, words

MIN_ENTITIES = 0.5  # share of the question's entities a quoted sentence must name
_NOT_NAMES = STOP_WORDS | word_set(
    """
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """
)
_VOCATIVE_BEFORE = re.compile(r",\s*$")
_VOCATIVE_AFTER = re.compile(r"^\s*[?.!]*\s*$")


@dataclass(frozen=True)
class Entity:
    words: tuple[str, ...]  # lower-cased, possessive 's dropped
    labelled: bool  # holds a one-letter or number label: only the whole phrase names it

    @property
    def text(self) -> str:
        return " ".join(self.words)


def entities(text: str, *, first: bool = False) -> list[Entity]:
    """The entities named in a text, in order (its first word too when `first`)."""
    found: list[Entity] = []
    run: list[str] = []
    labelled = pending_of = False
    previous_end = -1
    for index, match in enumerate(WORD_PATTERN.finditer(text)):
        word = _without_possessive(match.group(0))
        joined = bool(run) and not text[previous_end : match.start()].strip()
        previous_end = match.end()
        if joined and pending_of and _is_name(word):
            run += ["of", word.lower()]  # "Battle of Hastings", "Duke of Normandy": one name
            pending_of = False
            continue
        if joined and not pending_of and _is_label(word):
            run.append(word.lower())
            labelled = True
            continue
        if joined and not pending_of and word == "of":
            pending_of = True
            continue
        if pending_of or not joined or not _is_name(word):
            if run:
                found.append(Entity(tuple(run), labelled))
            run, labelled, pending_of = [], False, False
        if _is_name(word) and (index > 0 or first):
            run.append(word.lower())
    if run:
        found.append(Entity(tuple(run), labelled))
    return found


def question_entities(question: str) -> list[Entity]:
    """The entities a question is about: those it names, less the one it is addressed to."""
    found = entities(question)
    if found:
        last = found[-1]
        # "What do you think, Vlad?": the name after the last comma addresses, it asks nothing
        at = question.lower().rfind(last.words[0])
        if at > 0 and _VOCATIVE_BEFORE.search(question[:at]):
            tail = question[at + len(last.text) :]
            if _VOCATIVE_AFTER.match(tail):
                found = found[:-1]
    return found


def mentions(entity: Entity, text: str) -> bool:
    """Whether a text names the entity (a labelled one only by its whole phrase)."""
    said = [_without_possessive(word) for word in words(text)]
    if entity.labelled:
        size = len(entity.words)
        return any(tuple(said[i : i + size]) == entity.words for i in range(len(said) - size + 1))
    stems = {stem(word) for word in said}
    return any(len(word) >= 3 and stem(word) in stems for word in entity.words) or (
        all(len(word) < 3 for word in entity.words) and set(entity.words) <= set(said)
    )


def names_the_entities(
    asked: list[Entity], sentence: str, title: str = "", *, follows: str = ""
) -> bool:
    """Whether a sentence may be quoted for a question about `asked`: it names at least half of
    them (at least one) — itself; through `follows`, the sentence whose subject it takes up with
    a pronoun ("It was commissioned by Odo." after one naming the Tapestry); or through the title
    of its section when it names no other entity instead (under "## Acme", "They charge $49."
    speaks of Acme; "Beta charges $79." does not)."""
    if not asked:
        return True
    named = [e for e in asked if mentions(e, sentence) or (follows and mentions(e, follows))]
    if len(named) < len(asked) and title and not names_another(sentence, asked, title):
        named += [e for e in asked if e not in named and mentions(e, title)]
    return len(named) >= max(1, math.ceil(MIN_ENTITIES * len(asked)))


def names_another(sentence: str, asked: list[Entity], title: str = "") -> bool:
    """Whether the sentence names an entity that is neither asked about nor in its title."""
    title_stems = {stem(word) for word in words(title)}
    for entity in entities(sentence, first=True):
        if any(_same(entity, other) for other in asked):
            continue
        if not entity.labelled and {stem(word) for word in entity.words} <= title_stems:
            continue
        return True
    return False


def _same(entity: Entity, asked: Entity) -> bool:
    if entity.labelled or asked.labelled:
        return entity.words == asked.words
    return mentions(asked, entity.text)


def _is_name(word: str) -> bool:
    return (
        word[:1].isupper()
        and word.lower() not in _NOT_NAMES
        and not any(ch.isdigit() for ch in word)
    )


def _is_label(word: str) -> bool:
    """'B' of 'Competitor B', '2' of 'Tier 2'."""
    return (len(word) == 1 and word.isupper()) or (word.isdigit() and len(word) <= 3)


def _without_possessive(word: str) -> str:
    return re.sub(r"['’]s$", "", word)
