"""Durable memory facts (seed 001): local rules, the chat-model role, and the dedup key."""

import pytest

from shared.db.memory_facts import fact_key
from shared.prompts import load_prompt
from shared.providers.llm.memory import LLMMemoryExtractor
from shared.providers.local.memory import facts_in, remembered
from shared.providers.local.memory_extractor import LocalMemoryExtractor
from shared.providers.local.persons import swap_persons
from tests.fakes.llm_responder import ResponderChat, parse_variables, scripted_responder

FACTS = [
    ("I am the head of sales at Acme.", "user", "The user is the head of sales at Acme."),
    ("I'm a product manager at a fintech startup", "user", "product manager at a fintech"),
    ("My role is VP of Product at Zeta.", "user", "The user's role is VP of Product at Zeta."),
    ("I work as a freelance designer.", "user", "The user works as a freelance designer."),
    ("I run a 40-person consultancy in Oslo.", "user", "runs a 40-person consultancy"),
    ("I prefer short answers with the numbers first.", "user", "prefers short answers"),
    ("I'd rather see the data before the story.", "user", "would rather see the data"),
    ("Our bottleneck is onboarding.", "company", "The company's bottleneck is onboarding."),
    ("Our biggest challenge is hiring engineers.", "company", "challenge is hiring engineers"),
    ("We keep running into supplier delays.", "company", "keeps running into supplier delays"),
    ("We learned that annual contracts cut churn.", "company", "annual contracts cut churn"),
    ("Lesson learned: never launch on a Friday.", "company", "never launch on a Friday"),
    ("We always ship on Tuesdays.", "company", "always ship on Tuesdays"),
    ("Our team uses Linear for planning.", "company", "team uses Linear for planning"),
]

NOT_FACTS = [
    "Am I the right person to lead sales?",
    "Should our bottleneck be onboarding?",
    "What if I were the CEO of Acme?",
    "If we keep running into delays, we should switch suppliers.",
    "Imagine I am the head of sales.",
    "Please always answer in bullet points.",
    "Gunnar, don't use sports analogies.",
    "I'm a bit tired today.",
    "Our team is meeting tomorrow.",
    "Maybe I am the wrong person for this.",
    "We raised $2,500,000 in 2024.",
    "hello there",
]

SECRETS = [
    "I am the admin and my password is hunter2.",
    "I am the owner of the key sk-abcdefghijklmnopqrstuvwxyz123456.",
    "Our bottleneck is the card 4111 1111 1111 1111 being declined.",
    "I am the holder of SSN 123-45-6789.",
]


async def _local(message: str) -> list:
    return await LocalMemoryExtractor().extract_facts(message, "Noted.", "gunnar")


@pytest.mark.parametrize(("message", "kind", "expected"), FACTS)
async def test_stated_facts_are_kept_above_the_bar(message: str, kind: str, expected: str) -> None:
    facts = await _local(message)
    [fact] = [f for f in facts if expected in f.fact]
    others = [f.fact for f in facts if f is not fact]
    assert all(other.startswith("The user's company is called ") for other in others)
    assert fact.kind == kind
    assert expected in fact.fact
    assert fact.confidence > 0.8


@pytest.mark.parametrize("message", NOT_FACTS)
async def test_questions_hypotheticals_instructions_and_passing_states_are_not_facts(
    message: str,
) -> None:
    assert await _local(message) == []


@pytest.mark.parametrize("message", SECRETS)
async def test_refuses_any_fact_near_a_secret(message: str) -> None:
    assert await _local(message) == []


async def test_only_facts_above_0_8_are_kept() -> None:
    hedged = "I think I am the best closer on the team."
    [candidate] = facts_in(hedged)  # the pattern matches, with a lowered confidence
    assert candidate.confidence <= 0.8
    assert await _local(hedged) == []


async def test_the_assistant_s_answer_states_no_fact_about_the_user() -> None:
    facts = await LocalMemoryExtractor().extract_facts(
        "What should we do?", "I am the head of sales at Acme.", "gunnar"
    )
    assert facts == []


async def test_one_message_gives_each_of_its_facts_once() -> None:
    message = (
        "I am the head of sales at Acme. Our bottleneck is onboarding. "
        "I am the head of sales at Acme! What should we do about it?"
    )
    facts = await _local(message)
    assert sorted(f.fact for f in facts) == [
        "The company's bottleneck is onboarding.",
        "The user is the head of sales at Acme.",
        "The user's company is called Acme.",
    ]


async def test_each_kept_fact_comes_with_the_words_it_was_drawn_from() -> None:
    message = "Hi Vlad, I am the head of sales at Acme. Our bottleneck is onboarding!"
    kept = remembered(message)
    assert [s.words for s in kept] == [
        "I am the head of sales at Acme",
        "I am the head of sales at Acme",
        "Our bottleneck is onboarding",
    ]
    assert [s.fact.fact for s in kept][1] == "The user's company is called Acme."
    extracted = await LocalMemoryExtractor().extract_facts(message, "", "vlad")
    assert [s.fact for s in kept] == extracted


@pytest.mark.parametrize(
    ("said", "repeated"),
    [
        ("I am the head of sales at Acme", "you are the head of sales at Acme"),
        ("I'm a product manager", "you're a product manager"),
        ("We keep running into supplier delays", "you keep running into supplier delays"),
        ("Our team uses Linear", "your team uses Linear"),
        ("I want you to always ask me", "you want me to always ask you"),
        ("keep your answers short", "keep my answers short"),
        ("I prefer you never use analogies", "you prefer I never use analogies"),
    ],
)
def test_the_user_s_words_are_repeated_with_persons_swapped(said: str, repeated: str) -> None:
    assert swap_persons(said) == repeated


def test_fact_key_collapses_case_punctuation_and_spacing() -> None:
    assert fact_key("The user is the Head of Sales at Acme.") == fact_key(
        "the user is  the head of sales, at ACME"
    )
    assert fact_key("Onboarding is slow") != fact_key("Onboarding is fast")


async def test_llm_extractor_keeps_only_confident_secret_free_facts_of_known_kinds() -> None:
    answer = {
        "facts": [
            {"kind": "user", "fact": "The user is the head of sales at Acme.", "confidence": 0.95},
            {"kind": "User ", "fact": "The user is the head of sales at acme.", "confidence": 93},
            {"kind": "company", "fact": "The company may expand.", "confidence": 0.6},
            {
                "kind": "company",
                "fact": "The company's bottleneck is onboarding.",
                "confidence": 0.8,
            },
            {"kind": "user", "fact": "The user's password is hunter2.", "confidence": 0.99},
            {"kind": "weather", "fact": "It rains.", "confidence": 0.99},
        ]
    }
    chat = ResponderChat(scripted_responder({"memory_facts": answer}))
    facts = await LLMMemoryExtractor(chat).extract_facts(
        "I am the head of sales at Acme.", "Good to know.", "gunnar"
    )
    assert [(f.kind, f.fact, f.confidence) for f in facts] == [
        ("user", "The user is the head of sales at Acme.", 0.95)
    ]
    [call] = chat.calls
    assert (call.role, call.prompt) == ("memory", "memory_facts")
    shown = parse_variables(load_prompt("memory_facts"), call.user)
    assert shown["user_message"] == "I am the head of sales at Acme."
    assert shown["persona"] == "gunnar"
    assert shown["instruction_scope"] == "none"


INSTRUCTION_AND_FACT = "I am the CFO of Borealis. Vlad, I prefer you never use sports analogies."


@pytest.mark.parametrize("scope", ["vlad", "global"])
async def test_the_local_rules_leave_an_instruction_s_directive_out(scope: str) -> None:
    facts = await LocalMemoryExtractor().extract_facts(
        INSTRUCTION_AND_FACT, "Noted.", "vlad", instruction_scope=scope
    )
    assert [f.fact for f in facts] == [
        "The user is the CFO of Borealis.",
        "The user's company is called Borealis.",
    ]


async def test_the_llm_extractor_tells_the_model_whom_the_instruction_is_for() -> None:
    """The model, not the local rules, decides which words are the directive."""
    chat = ResponderChat(scripted_responder({}))
    facts = await LLMMemoryExtractor(chat).extract_facts(
        INSTRUCTION_AND_FACT, "Understood.", "vlad", instruction_scope="vlad"
    )
    assert [f.fact for f in facts] == [
        "The user is the CFO of Borealis.",
        "The user's company is called Borealis.",
    ]
    [call] = chat.calls
    shown = parse_variables(load_prompt("memory_facts"), call.user)
    assert (shown["instruction_scope"], shown["user_message"]) == ("vlad", INSTRUCTION_AND_FACT)


async def test_llm_extractor_with_a_realistic_model() -> None:
    chat = ResponderChat(scripted_responder({}))
    facts = await LLMMemoryExtractor(chat).extract_facts(
        "Our bottleneck is onboarding. Should we hire?", "Hire a trainer.", "vlad"
    )
    assert [(f.kind, f.fact) for f in facts] == [
        ("company", "The company's bottleneck is onboarding.")
    ]
