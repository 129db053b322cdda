"""A caller's own earlier messages (the OpenAI-compatible API) as one answer's P1 and P3."""

import uuid

from services.context.budget import Candidate, SectionPlan, fill
from services.context.caller_messages import (
    caller_turns,
    instruction_candidates,
    recent_candidates,
    turn_text,
    with_caller_messages,
)
from shared.secrets import redact

CHAT = [
    ("system", "Answer in French."),
    ("assistant", "Hello! How can I help?"),  # a client's greeting, before any question
    ("user", "What is our pricing?"),
    ("assistant", "Usage tiers [Ref: 2]."),
    ("user", "Since when?"),
    ("user", "And for annual contracts?"),
    ("assistant", "A ten percent discount."),
    ("tool", '{"ignored": true}'),
]


def test_user_and_assistant_messages_pair_into_turns_oldest_first() -> None:
    turns = [(t.question, t.answer) for t in caller_turns(CHAT)]
    assert turns == [
        ("", "Hello! How can I help?"),
        ("What is our pricing?", "Usage tiers [Ref: 2]."),
        ("Since when?", ""),
        ("And for annual contracts?", "A ten percent discount."),
    ]


def test_a_turn_reads_as_p1_without_its_old_markers_or_a_missing_side() -> None:
    [greeting, pricing, unanswered, _] = caller_turns(CHAT)
    assert turn_text(pricing, "gunnar") == (
        "[earlier in this chat · gunnar]\nUser: What is our pricing?\ngunnar: Usage tiers."
    )
    assert "User:" not in turn_text(greeting, "gunnar")
    assert "gunnar:" not in turn_text(unanswered, "gunnar")


def test_only_the_last_turns_enter_and_secrets_are_redacted() -> None:
    messages = [("user", f"question {n}") for n in range(8)]
    messages.append(("user", "my key is sk-abcdefghijklmnopqrstuvwxyz123456"))
    candidates = recent_candidates(messages, "gunnar", limit=3)
    assert [c.kind for c in candidates] == ["turn"] * 3
    assert "question 6" in candidates[0].text and "question 7" in candidates[1].text
    assert "sk-abcdefghijklmnopqrstuvwxyz123456" not in candidates[2].text
    assert all(c.cuttable for c in candidates)  # a long turn is cut to fit, like a stored one
    assert recent_candidates(messages, "gunnar", limit=0) == []


def test_system_and_developer_messages_are_this_answers_instructions() -> None:
    messages = [("system", "Be brief."), ("developer", "Cite everything."), ("system", "  ")]
    candidates = instruction_candidates([*messages, ("user", "Be verbose.")])
    assert [c.text for c in candidates] == [
        "Instruction for this answer: Be brief.",
        "Instruction for this answer: Cite everything.",
    ]


def test_the_callers_turns_replace_p1_and_their_instructions_lead_p3() -> None:
    stored_turn = Candidate("turn", uuid.uuid4(), "a stored turn of another chat")
    standing = Candidate("instruction", uuid.uuid4(), "Always answer in euros.")
    plans = [
        SectionPlan("recent_turns", "P1", [stored_turn]),
        SectionPlan("instructions", "P3", [standing]),
    ]
    with_caller_messages(plans, CHAT, "gunnar", limit=5)
    p1, p3 = plans
    assert stored_turn not in p1.candidates and len(p1.candidates) == 4
    assert [c.text for c in p3.candidates] == [
        "Instruction for this answer: Answer in French.",
        "Always answer in euros.",
    ]
    filled = fill(plans, cap=10_000)
    assert [s.name for s in filled.sections] == ["recent_turns", "instructions"]
    assert "What is our pricing?" in filled.sections[0].items[1].text


def test_the_same_words_twice_are_two_turns_not_one() -> None:
    """Candidate ids derive from position as well as text: nothing is dropped as a duplicate."""
    messages = [
        ("user", "Go on."),
        ("assistant", "Yes."),
        ("user", "Go on."),
        ("assistant", "Yes."),
    ]
    candidates = recent_candidates(messages, "gunnar", limit=5)
    assert len({c.id for c in candidates}) == 2


def test_a_stored_caller_turn_takes_its_id_so_its_cut_does_not_enter_again() -> None:
    secret = "sk-abcdefghijklmnopqrstuvwxyz123456"
    messages = [
        ("user", "Go on."),
        ("assistant", "Yes."),
        ("user", f"Is {secret} our key?"),
        ("assistant", "Do not share it."),
        ("user", "Go on."),
        ("assistant", "No."),
    ]
    first, keyed, second = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    # as the superjournal keeps them: questions redacted, oldest first
    stored = [("Go on.", first), (redact(f"Is {secret} our key?").text, keyed), ("Go on.", second)]
    candidates = recent_candidates(messages, "gunnar", limit=5, stored=stored)
    assert [c.id for c in candidates] == [first, keyed, second]  # each stored turn once

    cut = Candidate("journal", keyed, "Arc: the key is not to be shared")
    plans = [SectionPlan("recent_turns", "P1"), SectionPlan("journal", "P4", [cut])]
    with_caller_messages(plans, messages, "gunnar", limit=5, stored=stored)
    p1, p4 = fill(plans, cap=10_000).sections
    assert len(p1.items) == 3 and p4.items == []
