"""A turn's way into the journal: Artisan Cut 2A + 2B and durable facts, with secrets kept out."""

import asyncpg

from shared.domain import MemoryFact, TurnCut
from shared.providers import registry
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
            "instruction": redact(cut.instruction).text if cut.instruction else cut.instruction,
        }
    )


async def remembered_facts(turn: asyncpg.Record, cut: TurnCut) -> list[MemoryFact]:
    """Facts above the confidence bar; one holding a secret is refused, not redacted, and so is
    one holding a redaction marker (the stored message was redacted before it was read).

    The configured memory model is told the instruction the cut found: it leaves the directive
    out, since facts reach every persona and an instruction only its scope."""
    facts = await registry.memory_extractor().extract_facts(
        turn["user_message"],
        turn["ai_response"],
        turn["persona_name"],
        instruction_scope=cut.instruction_scope if cut.is_instruction else None,
    )
    return [
        fact
        for fact in facts
        if fact.confidence > MIN_FACT_CONFIDENCE
        and not contains_secret(fact.fact)
        and not holds_marker(fact.fact)
    ]
