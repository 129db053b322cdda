"""Offline memory extraction (seed 001) of one turn: the fact rules over the user's message, with
an instruction's directives left out by the instruction rules (seed 002; shared/memory_rule.py)."""

from shared.domain import MemoryFact
from shared.providers.local.memory import remembered
from shared.providers.local.told import fact_source


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
