"""P1-P5 planning without a database: isolation of instructions, P5 weighting and exclusions."""

import uuid
from datetime import UTC, datetime, timedelta

from services.context.assemble import (
    Conversation,
    conversation_plans,
    rank_recalled,
    recalled_candidates,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def cut(minute: int, **fields) -> dict:
    base = {
        "turn_id": uuid.uuid4(),
        "persona_name": "gunnar",
        "boss_essence": f"Boss asks about pricing {minute}.",
        "persona_essence": "Gunnar advises a staged increase.",
        "decision_arc_summary": f"Pricing step {minute}",
        "salience_score": 5,
        "is_instruction": False,
        "instruction_scope": None,
        "created_at": T0 + timedelta(minutes=minute),
    }
    return {**base, **fields}


def test_p4_never_holds_an_instruction_and_p3_holds_those_given() -> None:
    own = cut(1, is_instruction=True, instruction_scope="gunnar")
    others = cut(2, is_instruction=True, instruction_scope="vlad")
    plain = cut(3)
    conversation = Conversation([], [], [own], [], [own, others, plain], 3)
    plans = {p.name: p for p in conversation_plans(conversation, "pricing")}
    assert [c.id for c in plans["instructions"].candidates] == [own["turn_id"]]
    assert [c.id for c in plans["journal"].candidates] == [plain["turn_id"]]
    assert plans["journal"].candidates[0].citation["title"] == "Pricing step 3"
    assert plans["journal"].candidates[0].citation["snippet"] in plain["boss_essence"]


def test_p5_weighs_similarity_by_salience_and_excludes_loaded_turns_and_instructions() -> None:
    near_dull = {**cut(1, salience_score=2), "similarity": 0.9}  # 0.18
    far_vital = {**cut(2, salience_score=10), "similarity": 0.5}  # 0.50
    loaded = {**cut(3, salience_score=10), "similarity": 0.99}
    rule = {
        **cut(4, salience_score=10, is_instruction=True, instruction_scope="global"),
        "similarity": 0.99,
    }
    rows = [near_dull, far_vital, loaded, rule]
    ranked = rank_recalled(rows, {loaded["turn_id"]}, limit=10)
    assert ranked == [(far_vital["turn_id"], 0.5), (near_dull["turn_id"], 0.18)]
    assert rank_recalled(rows, set(), limit=1) == [(loaded["turn_id"], 0.99)]
    chosen = recalled_candidates(ranked, [near_dull, far_vital], query="pricing")
    assert [c.id for c in chosen] == [far_vital["turn_id"], near_dull["turn_id"]]
    assert chosen[0].score == 0.5 and chosen[0].citation["turn_id"] == far_vital["turn_id"]
