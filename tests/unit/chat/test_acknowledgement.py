"""The offline answerer acknowledges an instruction or a durable fact (exactly what will be
stored, and who keeps it, by the rule of shared/memory_rule.py) instead of refusing it; anything
that asks still goes through retrieval."""

import pytest

from shared.domain import REFUSAL
from shared.memory_rule import audience
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.providers.local.answer_check import check_answer_text
from shared.providers.local.memory_extractor import LocalMemoryExtractor
from shared.providers.local.persons import second_person
from shared.providers.local.turns import turn_cut
from shared.text.citations import REF
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle


async def answer(persona: str, message: str) -> tuple[str, bool]:
    """The answer over files that hold nothing about the message (confidence 0: the refusal
    for any question)."""
    bundle, passages = file_bundle({"pricing.md": PRICING, "hiring.md": HIRING}, confidence=0.0)
    stream = LocalAnswerer().stream_answer(
        AnswerInput(get_persona(persona), message, bundle, passages)
    )
    text = "".join([piece async for piece in stream])
    return text, stream.refused


@pytest.mark.parametrize(
    ("persona", "message", "expected"),
    [
        (
            "gunnar",
            "From now on, don't use sports analogies.",
            "Noted — from now on, no advisor will use sports analogies.",
        ),
        (
            "gunnar",
            "I am the head of finance at Acme.",
            "Got it: you are the head of finance at Acme and your company is called Acme; every "
            "advisor will know that.",
        ),
        (
            "samara",
            "I want you to always ask me a follow-up question at the end.",
            "Noted — from now on, every advisor will ask you a follow-up question at the end.",
        ),
        (
            "kirby",
            "Can you stop using bullet points, Kirby?",
            "Noted — from now on, I'll stop using bullet points. That one is just for me.",
        ),
        (
            "stefan",
            "All of you, never use emojis.",
            "Noted — from now on, no advisor will use emojis.",
        ),
        (
            "kirby",
            "Vlad, stop using bullet points.",
            "Noted — from now on, Vlad will stop using bullet points. That one is for Vlad only.",
        ),
        (
            "vlad",
            "I prefer short answers.",
            "Noted — you prefer short answers; from now on, every advisor will keep to that.",
        ),
        (
            "ananya",
            "I'm the head of finance at Acme. Please keep your answers under 150 words.",
            "Got it: you are the head of finance at Acme and your company is called Acme; every "
            "advisor will know that. And from now on, every advisor will keep their answers under "
            "150 words.",
        ),
        (
            "stefan",
            "Our biggest bottleneck is onboarding.",
            "Got it: your company's bottleneck is onboarding; every advisor will know that.",
        ),
        # the trial of issue 13
        (
            "gunnar",
            "I am Maya Chen, the CEO of Brightloop. I prefer short answers.",
            "Got it: your name is Maya Chen, you are the CEO of Brightloop and your company is "
            "called Brightloop; every advisor will know that. And you prefer short answers; from "
            "now on, every advisor will keep to that.",
        ),
        (
            "ananya",
            "Always answer in English.",
            "Noted — from now on, every advisor will answer in English.",
        ),
        (
            "gunnar",
            "Vlad, never use sports analogies.",
            "Noted — from now on, Vlad won't use sports analogies. That one is for Vlad only.",
        ),
        (
            "vlad",
            "Vlad, never use sports analogies.",
            "Noted — from now on, I won't use sports analogies. That one is just for me.",
        ),
        ("gunnar", "My name is Maya.", "Got it: your name is Maya; every advisor will know that."),
        ("kirby", "Call me Maya.", "Got it: your name is Maya; every advisor will know that."),
        (
            "stefan",
            "Our company is called Brightloop and we are based in Lisbon.",
            "Got it: your company is based in Lisbon and your company is called Brightloop; every "
            "advisor will know that.",
        ),
    ],
)
async def test_an_instruction_or_a_fact_is_acknowledged_not_refused(
    persona: str, message: str, expected: str
) -> None:
    text, refused = await answer(persona, message)
    assert (text, refused) == (expected, False)
    assert not REF.search(text)  # an acknowledgement cites nothing
    assert check_answer_text(text, {}).answer == text  # and call 1B keeps it as it is


@pytest.mark.parametrize(
    "message",
    [
        "I am the head of finance at Acme. What is the capital of Mongolia?",
        "Should we stop using sports analogies in the board deck?",
        "What did we decide about the Berlin office?",
        # neither an instruction nor a durable fact: nothing to acknowledge
        "Our staging password is [redacted password], keep it handy.",
        "If I were the head of finance, I would cut prices.",
        "Thanks!",
    ],
)
async def test_anything_else_still_goes_through_retrieval_and_refusal(message: str) -> None:
    assert await answer("gunnar", message) == (REFUSAL, True)


TOLD = [
    ("gunnar", "I am Maya Chen, the CEO of Brightloop. I prefer short answers."),
    ("ananya", "Always answer in English."),
    ("gunnar", "Vlad, never use sports analogies."),
    ("vlad", "I run Brightloop. Vlad, I prefer you never use sports analogies."),
    ("kirby", "Everyone, keep it short. We are based in Lisbon."),
    ("samara", "Call me Maya. You, Samara, should answer in bullet points."),
    ("stefan", "Our bottleneck is onboarding."),
]


@pytest.mark.parametrize(("persona", "message"), TOLD)
async def test_the_acknowledgement_says_what_the_journal_and_the_memory_will_hold(
    persona: str, message: str
) -> None:
    """The note is written before the turn is journaled: it must name every fact the memory
    will hold and whom the journal's instruction is for, in the memory panel's words."""
    text, _ = await answer(persona, message)
    cut = turn_cut(message, text, persona)
    scope = cut.instruction_scope if cut.is_instruction else None
    facts = await LocalMemoryExtractor().extract_facts(
        message, text, persona, instruction_scope=scope
    )
    for fact in facts:
        said = second_person(fact.fact).rstrip(".")
        assert said[:1].lower() + said[1:] in text
    if scope is not None:
        keeper = "I" if scope == persona else audience(scope)
        if scope == "global":
            assert "every advisor will" in text or "no advisor will" in text
        else:
            assert ("just for me" if keeper == "I" else f"for {keeper} only") in text
    assert ("Got it:" in text) is bool(facts)
