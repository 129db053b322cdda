"""Offline memory extraction (seed 001) of one turn: the fact rules over the user's message, with
an instruction's directives left out by the instruction rules (seed 002)."""

from shared.domain import GLOBAL_SCOPE, MemoryFact
from shared.providers.local.instructions import directive_sentences, without_directives
from shared.providers.local.memory import remembered


def fact_source(message: str, instruction_scope: str | None) -> str:
    """What facts may be drawn from. Facts reach every persona (P3), so an instruction's
    directive is never one ("Vlad, I prefer you never …" stays Vlad's); when the rules find no
    directive in a persona-scoped instruction (a model saw one), the turn gives no facts."""
    if instruction_scope is None:
        return message
    if instruction_scope != GLOBAL_SCOPE and not directive_sentences(message):
        return ""
    return without_directives(message)


class LocalMemoryExtractor:
    """Seed 001's rules over the user's message (the answer states no facts about the user)."""

    async def extract_facts(
        self,
        user_message: str,
        ai_response: str,
        persona: str,
        *,
        instruction_scope: str | None = None,
    ) -> list[MemoryFact]:
        source = fact_source(user_message, instruction_scope)
        return [stated.fact for stated in remembered(source)]
