"""What a turn's memory facts may be drawn from: never an instruction's directive (facts reach
every persona, an instruction only its scope)."""

from services.compressor.turns import fact_source, remembered_facts
from shared.domain import TurnCut
from shared.providers.local.memory import facts_in
from shared.secrets import redact


def cut(is_instruction: bool, scope: str | None) -> TurnCut:
    return TurnCut(
        boss_essence="b",
        persona_name="vlad",
        persona_essence="p",
        decision_arc_summary="a",
        salience_score=5,
        is_instruction=is_instruction,
        instruction_scope=scope,
    )


def test_a_persona_scoped_directive_gives_no_fact_but_the_other_sentences_do() -> None:
    message = "I am the CFO of Borealis. Vlad, I prefer you never use sports analogies."
    source = fact_source(message, cut(True, "vlad"))
    assert [f.fact for f in facts_in(source)] == ["The user is the CFO of Borealis."]


def test_a_global_directive_is_an_instruction_not_a_fact() -> None:
    message = "Everyone, I'd rather you never use bullet points. I run a bakery in Oslo."
    source = fact_source(message, cut(True, "global"))
    assert [f.fact for f in facts_in(source)] == ["The user runs a bakery in Oslo."]


def test_a_scoped_instruction_the_rules_cannot_place_gives_no_facts() -> None:
    message = "I'd rather see the data before the story."  # a model called it Vlad's
    assert facts_in(message) and fact_source(message, cut(True, "global")) == message
    assert fact_source(message, cut(True, "vlad")) == ""


def test_a_turn_that_is_no_instruction_is_read_whole() -> None:
    message = "I prefer short answers with the numbers first."
    assert fact_source(message, cut(False, None)) == message


async def test_a_fact_holding_a_redaction_marker_is_refused() -> None:
    """Chat and import redact the message first: the secret is a marker by then, not a secret."""
    message = redact("I am the admin and my password is hunter2xyz. I run a bakery.").text
    turn = {"user_message": message, "ai_response": "Noted.", "persona_name": "gunnar"}
    facts = await remembered_facts(turn, cut(False, None))
    assert [f.fact for f in facts] == ["The user runs a bakery."]
