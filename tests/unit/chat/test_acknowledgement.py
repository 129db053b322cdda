"""The offline answerer acknowledges an instruction or a durable fact (what will be remembered,
and for whom) instead of refusing it; anything that asks still goes through retrieval."""

import pytest

from shared.domain import REFUSAL
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.providers.local.answer_check import check_answer_text
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
            "Noted — I won't use sports analogies from now on.",
        ),
        (
            "gunnar",
            "I am the head of finance at Acme.",
            "Noted — you are the head of finance at Acme; I'll remember that, and so will every "
            "other persona.",
        ),
        (
            "samara",
            "I want you to always ask me a follow-up question at the end.",
            "Noted — I'll always ask you a follow-up question at the end.",
        ),
        (
            "kirby",
            "Can you stop using bullet points, Kirby?",
            "Noted — I'll stop using bullet points from now on.",
        ),
        (
            "stefan",
            "All of you, never use emojis.",
            "Noted — I won't use emojis from now on. That goes for every persona, not just me.",
        ),
        (
            "kirby",
            "Vlad, stop using bullet points.",
            "Noted — that one is for Vlad: “stop using bullet points.” Vlad will keep to it from "
            "now on.",
        ),
        (
            "vlad",
            "I prefer short answers.",
            "Noted — you prefer short answers; I'll keep that in mind from now on.",
        ),
        (
            "ananya",
            "I'm the head of finance at Acme. Please keep your answers under 150 words.",
            "Noted — I'll keep my answers under 150 words from now on. And you're the head of "
            "finance at Acme; I'll remember that, and so will every other persona.",
        ),
        (
            "stefan",
            "Our biggest bottleneck is onboarding.",
            "Noted — your biggest bottleneck is onboarding; I'll remember that, and so will every "
            "other persona.",
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
