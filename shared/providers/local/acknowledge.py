"""The persona's answer to a message that asks nothing but tells Artisan something: exactly what
will be stored and who keeps it, read by the same rule as the journal and the memory (told.py).

"Got it: your name is Maya Chen and you are the CEO of Brightloop; every advisor will know
that." · "Noted — from now on, every advisor will answer in English." · "Noted — from now on,
Vlad won't use sports analogies. That one is for Vlad only."
"""

import re

from shared.domain import GLOBAL_SCOPE
from shared.memory_rule import EVERY_ADVISOR, audience
from shared.personas import Persona
from shared.providers.local.instructions import Instruction, directive_clause, is_directive, promise
from shared.providers.local.memory import is_question, message_sentences
from shared.providers.local.persons import second_person
from shared.providers.local.told import told

_PREFERENCE = re.compile(r"(?P<said>.+); I'll keep that in mind$")
_MY = re.compile(r"\bmy\b")
_MYSELF = re.compile(r"\bmyself\b")


def acknowledgement(persona: Persona, message: str) -> str | None:
    """For a message that asks nothing but states facts or gives an instruction, what is stored
    and for whom; None for anything else (retrieval answers it)."""
    if any(is_question(s) and not is_directive(s) for s in message_sentences(message)):
        return None
    reading = told(message, persona.name)
    notes = []
    if reading.facts:
        facts = [_clause(second_person(stated.fact.fact)) for stated in reading.facts]
        notes.append(f"Got it: {_listed(facts)}; {EVERY_ADVISOR} will know that.")
    if reading.instruction.is_instruction:
        said = instruction_note(reading.instruction, persona.name)
        notes.append(f"And {said}" if notes else f"Noted — {said}")
    return " ".join(notes) or None


def instruction_note(instruction: Instruction, persona: str) -> str:
    """'from now on, every advisor will answer in English.'; for one advisor, whose it is."""
    scope = instruction.scope or persona
    keeper = "I" if scope == persona else audience(scope)
    clauses = [c for c in map(directive_clause, instruction.sentences) if c]
    said = " ".join(f"{pledge(clause, keeper)}." for clause in clauses)
    if scope == GLOBAL_SCOPE:
        return said
    return f"{said} That one is {'just for me' if keeper == 'I' else f'for {keeper} only'}."


def pledge(clause: str, keeper: str) -> str:
    """A directive as its keeper's promise: "never use sports analogies" → "from now on, Vlad
    won't use sports analogies"; a preference it does not rephrase is repeated back ("you
    prefer short answers; from now on, every advisor will keep to that")."""
    said = promise(clause).removesuffix(" from now on")
    if preference := _PREFERENCE.fullmatch(said):
        return f"{preference.group('said')}; from now on, {_will(keeper)} keep to that"
    if said.startswith("I won't ") or said.startswith("I'll never "):
        rest = said.removeprefix("I won't ").removeprefix("I'll never ")
        return f"from now on, {_will_not(keeper)} {_theirs(rest, keeper)}"
    if said.startswith("I'll "):
        rest = re.sub(r"^always\s+", "", said[5:])  # "from now on" says it already
        return f"from now on, {_will(keeper)} {_theirs(rest, keeper)}"
    return said


def _will(keeper: str) -> str:
    return "I'll" if keeper == "I" else f"{keeper} will"


def _will_not(keeper: str) -> str:
    if keeper == "I":
        return "I won't"
    return "no advisor will" if keeper == EVERY_ADVISOR else f"{keeper} won't"


def _theirs(text: str, keeper: str) -> str:
    """The promise's own words ("my answers") as another keeper's ("their answers")."""
    if keeper == "I":
        return text
    return _MYSELF.sub("themselves", _MY.sub("their", text))


def _clause(sentence: str) -> str:
    text = sentence.strip().rstrip(".")
    return text[:1].lower() + text[1:]


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
