"""Local Artisan Cut of a conversation turn: essences, arc, salience and seed 002's instructions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import TurnCut
from shared.providers.local import LocalCompressor
from shared.providers.local.instructions import detect_instruction
from shared.providers.local.turns import BOSS_ESSENCE_CHARS, PERSONA_ESSENCE_CHARS, turn_cut

PRICING_QUESTION = (
    "Our churn is 7% a month among small teams and I think per-seat pricing is the problem. "
    "The board meets in three weeks and I need a recommendation I can defend. "
    "Should we switch to usage tiers before the Q3 board meeting, or wait for more data?"
)
PRICING_ANSWER = (
    "Thanks for sharing the numbers. Looking at your churn data, small teams leave after the "
    "second invoice. I recommend you move from per-seat pricing to three usage tiers: Starter "
    "at $29, Team at $99 and Business at $299 a month. The main risk is that teams between "
    "tiers downgrade, so you should track downgrades weekly for the first 90 days. Honestly, "
    "the weather in Berlin was terrible that year, which did not help anyone's mood."
)

# (message, persona the message was sent to, expected scope or None when no instruction): the
# rule of shared/memory_rule.py, every advisor unless the message names the one it speaks to
INSTRUCTION_CASES = [
    ("Gunnar, don't use sports analogies.", "gunnar", "gunnar"),
    ("Gunnar, don't use sports analogies.", "vlad", "gunnar"),
    ("Vlad, stop using bullet points.", "kirby", "vlad"),
    ("Can you stop using bullet points, Kirby?", "gunnar", "kirby"),
    ("Hey Stefan! Great work on the plan. Never sugarcoat your feedback.", "gunnar", "stefan"),
    ("Samara, always explain your reasoning step by step.", "Gunnar", "samara"),
    ("Tell Ananya to stop using jargon.", "vlad", "ananya"),
    ("Don't use sports analogies.", "kirby", "global"),
    ("I want you to always ask me a follow-up question at the end.", "Samara", "global"),
    ("Please keep your answers under 150 words.", "gunnar", "global"),
    ("From now on, reply in German.", "vlad", "global"),
    ("Avoid long-winded explanations, I read this on my phone.", "stefan", "global"),
    ("Don't use analogies like Vlad does.", "kirby", "global"),
    ("I prefer short answers.", "vlad", "global"),
    ("from now on talk to me like a cofounder, not a consultant", "kirby", "global"),
    ("Stefan and Ananya, stop sugarcoating.", "vlad", "stefan"),
    ("Stefan and Ananya, stop sugarcoating.", "ananya", "ananya"),
    ("All of you, never use emojis.", "stefan", "global"),
    ("Everyone: from now on, answer in British English.", "ananya", "global"),
    ("Any of you who answers: avoid jargon.", "vlad", "global"),
    # the trial (issue 13): "always" and "you" alone never narrow an instruction to one persona
    ("Always answer in English.", "ananya", "global"),
    ("I am Maya Chen, the CEO of Brightloop. I prefer short answers.", "gunnar", "global"),
    ("You, Gunnar, should keep it brief.", "vlad", "gunnar"),
    ("Vlad, never use sports analogies.", "vlad", "vlad"),
    ("Vlad said our margin is 74%. Always answer in English.", "gunnar", "global"),
    ("Call me Maya.", "gunnar", None),  # a name: a fact, not an instruction
    ("We never hit our Q3 target.", "gunnar", None),
    ("Always-on pricing is a risk for our margins.", "gunnar", None),
    ("Don't worry, the sales team always answers questions within a day.", "vlad", None),
    ("Our customers always ask for shorter contracts.", "vlad", None),
    ("I never answer emails after 6pm.", "vlad", None),
    ("Stop the Berlin expansion until we know the numbers.", "vlad", None),
    ("Never sign a lease longer than three years.", "kirby", None),
    ("You should never discount more than 20%.", "vlad", None),
    ("From now on we only sell annual plans.", "samara", None),
    ("From now on, the team answers questions in German.", "samara", None),
    ("Don't forget to send the deck to the board.", "vlad", None),
    ("Give me a short summary of the Q3 numbers.", "vlad", None),
    # keeping or remembering information is not a directive about how the persona responds
    ("Our staging password is [redacted password], keep it handy.", "gunnar", None),
    ("Here is the board deck link, keep it handy for Monday.", "vlad", None),
    ("Keep these references handy for the audit.", "samara", None),
    ("Remember to keep the sources of the Q3 report somewhere safe.", "stefan", None),
    ("Keep in mind that our citation style guide changes in May.", "kirby", None),
    ("Keep track of the sources for the audit.", "ananya", None),
    ("Keep it short.", "gunnar", "global"),
    ("Keep it simple, please.", "vlad", "global"),
    ("From now on, keep your answers under 100 words.", "kirby", "global"),
    ("Keep in mind that I hate jargon.", "kirby", "global"),
    ("Remember to cite your sources.", "ananya", "global"),
]


@pytest.mark.parametrize(("message", "persona", "scope"), INSTRUCTION_CASES)
def test_instruction_detection_and_scope(message: str, persona: str, scope: str | None) -> None:
    cut = turn_cut(message, "Understood.", persona)
    assert cut.is_instruction is (scope is not None)
    assert cut.instruction_scope == scope
    assert detect_instruction(message, persona).scope == scope


def test_an_instruction_inside_a_longer_business_message_is_found_and_kept() -> None:
    message = (
        f"{PRICING_QUESTION} One more thing, Vlad: stop using sports analogies, they confuse "
        "the board members who read your notes."
    )
    cut = turn_cut(message, PRICING_ANSWER, "gunnar")
    assert cut.is_instruction and cut.instruction_scope == "vlad"
    assert "stop using sports analogies" in cut.boss_essence  # directives survive compression
    assert cut.decision_arc_summary.startswith("Instruction for vlad: stop using sports")


def test_scope_is_always_lower_case_and_one_of_the_allowed_values() -> None:
    allowed = {"global", "gunnar", "vlad", "kirby", "stefan", "ananya", "samara"}
    for message, persona, _ in INSTRUCTION_CASES:
        cut = turn_cut(message, "Noted.", persona.upper())
        assert cut.persona_name == persona.lower()
        assert cut.instruction_scope is None or cut.instruction_scope in allowed


@pytest.mark.parametrize(
    ("user_message", "ai_response"),
    [
        ("Hi", "Hello!"),
        ("ok", "👍"),
        ("", ""),
        ("?", "Could you say more?"),
        (PRICING_QUESTION * 8, PRICING_ANSWER * 12),
        ("x" * 5000, "y" * 5000),
    ],
)
def test_arc_stays_within_50_to_150_characters(user_message: str, ai_response: str) -> None:
    cut = turn_cut(user_message, ai_response, "gunnar")
    assert 50 <= len(cut.decision_arc_summary) <= 150
    assert not cut.decision_arc_summary.endswith((" ", ",", ";", ":", "→"))
    assert len(cut.boss_essence) <= BOSS_ESSENCE_CHARS
    assert len(cut.persona_essence) <= PERSONA_ESSENCE_CHARS


def test_long_turn_is_compressed_to_its_key_sentences() -> None:
    cut = turn_cut(PRICING_QUESTION, PRICING_ANSWER, "Vlad")
    assert cut.persona_name == "vlad"
    assert len(cut.boss_essence) < len(PRICING_QUESTION)
    assert "I recommend you move from per-seat pricing to three usage tiers" in (
        cut.persona_essence
    )
    assert "weather" not in cut.persona_essence and "Thanks" not in cut.persona_essence
    assert "→" in cut.decision_arc_summary  # what was asked → what was answered
    assert "tiers" in cut.decision_arc_summary


def test_a_short_message_is_its_own_boss_essence() -> None:
    cut = turn_cut("  Should we   hire a CFO this year? ", "Not yet.", "kirby")
    assert cut.boss_essence == "Should we hire a CFO this year?"


def test_salience_ranks_small_talk_below_decisions_and_instructions() -> None:
    small_talk = turn_cut("Hi Gunnar, how are you today?", "Doing well, thanks!", "gunnar")
    question = turn_cut("What's the capital of France?", "Paris.", "stefan")
    decision = turn_cut(
        "We decided to raise the Pro plan to $49 per month from March 1.",
        "Good call. Announce it 30 days ahead and grandfather annual customers.",
        "kirby",
    )
    instruction = turn_cut("Never use emojis.", "Understood.", "vlad")
    pricing = turn_cut(PRICING_QUESTION, PRICING_ANSWER, "vlad")
    assert small_talk.salience_score <= 2 and question.salience_score <= 3
    assert decision.salience_score >= 6
    assert instruction.salience_score >= 7
    assert pricing.salience_score >= 6


def test_turn_cut_is_deterministic() -> None:
    first = turn_cut(PRICING_QUESTION, PRICING_ANSWER, "vlad")
    assert all(turn_cut(PRICING_QUESTION, PRICING_ANSWER, "vlad") == first for _ in range(3))


async def test_local_compressor_compresses_turns() -> None:
    cut = await LocalCompressor().compress_turn("Gunnar, never use jargon.", "Got it.", "Gunnar")
    assert isinstance(cut, TurnCut)
    assert (cut.is_instruction, cut.instruction_scope, cut.persona_name) == (
        True,
        "gunnar",
        "gunnar",
    )


@given(
    user_message=st.text(max_size=400),
    ai_response=st.text(max_size=600),
    persona=st.sampled_from(["gunnar", "Vlad", "KIRBY", "asura"]),
)
@settings(max_examples=150, deadline=None)
def test_any_turn_gives_a_valid_cut(user_message: str, ai_response: str, persona: str) -> None:
    cut = turn_cut(user_message, ai_response, persona)
    assert 50 <= len(cut.decision_arc_summary) <= 150
    assert 1 <= cut.salience_score <= 10
    assert cut.persona_name == persona.lower()
    assert (cut.instruction_scope is None) is (not cut.is_instruction)
