"""P1-P5 planning without a database: isolation of instructions, P5 weighting and exclusions."""

import uuid
from datetime import UTC, datetime, timedelta

from services.context.assemble import Conversation, conversation_plans
from services.context.recall import RRF_K, SALIENCE_EXPONENT, fuse, weighted_by_salience

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


def test_p5_fuses_rankings_by_reciprocal_rank() -> None:
    a, b, c = (uuid.uuid4() for _ in range(3))
    fused = fuse([([a, b], 1.0), ([b, c], 0.5)])
    assert fused[a] == 1 / (RRF_K + 1)
    assert fused[b] == 1 / (RRF_K + 2) + 0.5 / (RRF_K + 1)
    assert fused[c] == 0.5 / (RRF_K + 2)
    assert max(fused, key=fused.__getitem__) == b  # found by both beats first in one


def test_p5_weighs_relevance_by_salience() -> None:
    dull, vital, unranked = cut(1, salience_score=1), cut(2, salience_score=9), cut(3)
    fused = {dull["turn_id"]: 0.016, vital["turn_id"]: 0.015}  # close: salience decides
    chosen = weighted_by_salience(fused, [dull, vital, unranked], limit=10)
    assert [entry["turn_id"] for entry, _ in chosen] == [vital["turn_id"], dull["turn_id"]]
    assert chosen[0][1] == 0.015 * 0.9**SALIENCE_EXPONENT
    assert len(weighted_by_salience(fused, [dull, vital], limit=1)) == 1
    clearly = {dull["turn_id"]: 0.03, vital["turn_id"]: 0.015}  # a prior, not a filter
    assert weighted_by_salience(clearly, [dull, vital], limit=1)[0][0] is dull
