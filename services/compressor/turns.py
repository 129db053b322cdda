"""A turn's way into the journal: Artisan Cut 2A + 2B and durable facts, with secrets kept out."""

import asyncpg

from shared.domain import GLOBAL_SCOPE, MemoryFact, TurnCut
from shared.providers import registry
from shared.providers.local.instructions import directive_sentences, without_directives
from shared.secrets import contains_secret, holds_marker, redact

MIN_FACT_CONFIDENCE = 0.8


async def cut_turn(turn: asyncpg.Record) -> TurnCut:
    """2A then 2B; the texts were redacted when stored, and the cut is again (defence in depth:
    a model may reassemble what the redaction split)."""
    message, answer, persona = turn["user_message"], turn["ai_response"], turn["persona_name"]
    draft = await registry.compressor().compress_turn(message, answer, persona)
    cut = await registry.verifier().verify_turn(message, answer, persona, draft)
    return cut.model_copy(
        update={
            "boss_essence": redact(cut.boss_essence).text,
            "persona_essence": redact(cut.persona_essence).text,
            "decision_arc_summary": redact(cut.decision_arc_summary).text,
        }
    )


async def remembered_facts(turn: asyncpg.Record, cut: TurnCut) -> list[MemoryFact]:
    """Facts above the confidence bar; one holding a secret is refused, not redacted, and so is
    one holding a redaction marker (the stored message was redacted before it was read)."""
    message = fact_source(turn["user_message"], cut)
    if not message:
        return []
    facts = await registry.memory_extractor().extract_facts(
        message, turn["ai_response"], turn["persona_name"]
    )
    return [
        fact
        for fact in facts
        if fact.confidence > MIN_FACT_CONFIDENCE
        and not contains_secret(fact.fact)
        and not holds_marker(fact.fact)
    ]


def fact_source(message: str, cut: TurnCut) -> str:
    """What facts may be drawn from. Facts reach every persona (P3), so an instruction's
    directive is never one ("Vlad, I prefer you never …" stays Vlad's); when the rules find no
    directive in a persona-scoped instruction (a model saw one), the turn gives no facts."""
    if not cut.is_instruction:
        return message
    if cut.instruction_scope != GLOBAL_SCOPE and not directive_sentences(message):
        return ""
    return without_directives(message)
