"""What a message tells Artisan, read offline by the one rule (shared/memory_rule.py): the facts
it states and the instruction it gives, with the instruction's scope and words.

The turn cut (is_instruction, instruction_scope, instruction), the memory facts and the
acknowledgement all read a message through `told`, so what a persona says it will remember is
what the journal and the memory hold.
"""

import re
from dataclasses import dataclass

from shared.domain import GLOBAL_SCOPE
from shared.providers.local.instructions import (
    Instruction,
    detect_instruction,
    directive_clause,
    directive_sentences,
    without_directives,
)
from shared.providers.local.memory import Stated, remembered

# how a request is put, not what it asks ("could you please ...", "I want you to ...")
_ASKING = re.compile(
    r"^(?:(?:can|could|would|will) you(?: please)?|i(?: really)? (?:want|need|would like|'d like"
    r"|expect) you to|you (?:should|must|need to|have to))\s+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Told:
    """The facts a message states and the instruction it gives (shared/memory_rule.py)."""

    facts: tuple[Stated, ...]
    instruction: Instruction

    @property
    def instruction_words(self) -> str | None:
        """The instruction as stored and shown: its directives without their address ("Vlad,
        from now on, never use sports analogies." → "Never use sports analogies.")."""
        clauses = [c for c in map(directive_clause, self.instruction.sentences) if c]
        if not self.instruction.is_instruction or not clauses:
            return None
        return " ".join(_sentence(clause) for clause in clauses)


def told(message: str, persona: str) -> Told:
    """The facts and the instruction of a message sent to `persona`."""
    instruction = detect_instruction(message, persona)
    source = without_directives(message) if instruction.is_instruction else message
    return Told(tuple(remembered(source)), instruction)


def fact_source(message: str, instruction_scope: str | None) -> str:
    """What facts may be drawn from, given the scope a (possibly remote) cut found. Facts reach
    every persona, so an instruction's directive is never one ("Vlad, I prefer you never …"
    stays Vlad's); when the rules find no directive in a persona-scoped instruction (a model
    saw one), the turn gives no facts."""
    if instruction_scope is None:
        return message
    if instruction_scope != GLOBAL_SCOPE and not directive_sentences(message):
        return ""
    return without_directives(message)


def _sentence(clause: str) -> str:
    """A directive clause as the user's instruction: "can you stop using bullet points?" →
    "Stop using bullet points."."""
    text = _ASKING.sub("", clause.strip()).rstrip(".!?…").strip()
    return f"{text[:1].upper()}{text[1:]}."
