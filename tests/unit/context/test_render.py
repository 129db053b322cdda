"""How past turns and cuts read in the context: their old [Ref: N] markers are left out (they
point at that answer's sources, not at this context's refs); citations still quote the cut."""

import uuid
from datetime import UTC, datetime

from services.context import render
from services.context.assemble import Conversation, conversation_plans
from services.context.budget import fill
from shared.text import citations
from tests.unit.context.test_priorities import T0, cut

OLD_ANSWER = (
    "Straight to it - here is what your records say.\n\n"
    "We decided to move to usage tiers. [Ref: 2] The risk is churn among small teams. "
    "[Ref: 1][Ref: 3]"
)


def turn(**fields: object) -> dict:
    base = {
        "id": uuid.uuid4(),
        "persona_name": "gunnar",
        "user_message": "Why usage tiers? See [Ref: 4]",
        "ai_response": OLD_ANSWER,
        "created_at": T0,
        "turn_id": None,
    }
    return {**base, **fields}


def test_ref_markers_are_removed_with_the_space_before_them() -> None:
    assert citations.without_ref_markers(OLD_ANSWER) == (
        "Straight to it - here is what your records say.\n\n"
        "We decided to move to usage tiers. The risk is churn among small teams."
    )
    assert citations.without_ref_markers("no markers [Ref: x]") == "no markers [Ref: x]"


def test_recent_and_starred_turns_and_journal_cuts_carry_no_old_ref_markers() -> None:
    recent, starred = turn(), turn(is_starred=True)
    essence = "We decided to move to usage tiers. [Ref: 2]"
    entry = cut(5, persona_essence=essence, decision_arc_summary="Pricing: tiers [Ref: 2]")
    rule = cut(
        6, is_instruction=True, instruction_scope="gunnar", boss_essence="No jargon [Ref: 1]"
    )
    conversation = Conversation([recent], [starred], [rule], [], [entry], 2)
    plans = conversation_plans(conversation, "usage tiers")
    texts = [c.text for plan in plans for c in plan.candidates]
    assert len(texts) == 4
    for text in texts:
        assert "[Ref:" not in text, text
    assert "We decided to move to usage tiers. The risk is churn among small teams." in texts[0]
    assert "gunnar: We decided to move to usage tiers." in texts[3]
    journal = next(plan for plan in plans if plan.name == "journal")
    # the citation quotes the stored cut exactly, as before
    snippet = journal.candidates[0].citation["snippet"]
    assert snippet in entry["boss_essence"] or snippet in essence


def test_a_cut_is_quoted_from_its_essences_without_header_or_old_markers() -> None:
    entry = cut(7, persona_essence="We open the Berlin office in May. [Ref: 2]")
    passage = citations.cut_passage(entry)
    assert passage == f"{entry['boss_essence']}\n\nWe open the Berlin office in May."
    assert "Arc:" not in passage and "gunnar" not in passage


def test_an_instruction_enters_p3_in_the_user_s_words_alone() -> None:
    entry = {
        "instruction_scope": "global",
        "created_at": datetime(2026, 11, 20, 10, 0, tzinfo=UTC),
        "boss_essence": "I am Maya Chen, the CEO of Brightloop. I prefer short answers.",
        "instruction": "I prefer short answers.",
    }
    assert render.instruction_text(entry) == (
        "Instruction for all personas (given 2026-11-20 10:00): I prefer short answers."
    )
    # a cut stored before the instruction's words were kept: its boss essence
    assert render.instruction_text({**entry, "instruction": None}).endswith(entry["boss_essence"])


def test_a_memory_fact_cites_itself() -> None:
    fact = {"id": uuid.uuid4(), "kind": "company", "fact": "The user's company is called Acme."}
    assert render.fact_citation(fact) == {
        "fact_id": fact["id"],
        "title": "About your company",
        "snippet": "The user's company is called Acme.",
    }


def test_a_fresh_instruction_stands_in_p3_while_its_turn_is_also_one_of_the_last() -> None:
    """The turn is the exchange (P1), the instruction the standing rule (P3): both enter, so the
    persona follows it from the very next answer."""
    given = cut(1, is_instruction=True, instruction_scope="global", instruction="Be brief.")
    recent = turn(id=given["turn_id"], user_message="Be brief.", ai_response="Noted.")
    fact = {
        "id": uuid.uuid4(),
        "kind": "user",
        "fact": "The user's name is Maya.",
        "created_at": T0,
    }
    conversation = Conversation([recent], [], [given], [fact], [given], 1)
    filled = fill(conversation_plans(conversation, "q"), cap=10_000)
    by_name = {section.name: section for section in filled.sections}
    assert [i.id for i in by_name["recent_turns"].items] == [given["turn_id"]]
    assert [i.text[-9:] for i in by_name["instructions"].items] == ["Be brief."]
    assert [i.ref for i in by_name["memory"].items] == [1]  # a fact is citable
