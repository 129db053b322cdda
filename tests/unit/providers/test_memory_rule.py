"""The one rule (shared/memory_rule.py), as the offline path reads a message: facts about the user
and the company, an instruction about how to answer, and whom the instruction is for."""

import pytest

from services.gateway.conversations.turn_schemas import MAX_IMPORT_FIELD_CHARS
from shared.memory_rule import audience, held_scope, instruction_scope
from shared.personas import get_persona
from shared.providers.local.acknowledge import acknowledgement
from shared.providers.local.memory import remembered
from shared.providers.local.persons import second_person
from shared.providers.local.style import Style, followed
from shared.providers.local.told import told
from tests.unit.text.linear_time import assert_fast

NAME = "The user's name is Maya Chen."
CEO = "The user is the CEO of Brightloop."
BRIGHTLOOP = "The user's company is called Brightloop."

# (message, sent to, facts stored, instruction stored, its scope)
RULE = [
    # the trial of issue 13: both, the preference for every advisor
    (
        "I am Maya Chen, the CEO of Brightloop. I prefer short answers.",
        "gunnar",
        [NAME, CEO, BRIGHTLOOP],
        "I prefer short answers.",
        "global",
    ),
    ("Always answer in English.", "ananya", [], "Always answer in English.", "global"),
    ("From now on, answer in bullet points.", "kirby", [], "Answer in bullet points.", "global"),
    ("Never use sports analogies.", "vlad", [], "Never use sports analogies.", "global"),
    ("I want you to be blunt.", "stefan", [], "Be blunt.", "global"),  # "you" alone
    ("All of you, never use emojis.", "samara", [], "Never use emojis.", "global"),
    # named: that advisor only, whoever it was said to
    ("Vlad, never use sports analogies.", "gunnar", [], "Never use sports analogies.", "vlad"),
    ("Vlad, never use sports analogies.", "vlad", [], "Never use sports analogies.", "vlad"),
    ("You, Gunnar, should keep it brief.", "kirby", [], "Keep it brief.", "gunnar"),
    (
        "Tell Ananya to stop using jargon.",
        "vlad",
        [],
        "Tell Ananya to stop using jargon.",
        "ananya",
    ),
    ("Can you stop using bullet points, Kirby?", "kirby", [], "Stop using bullet points.", "kirby"),
    # a persona spoken about, not to: every advisor's
    ("Vlad said our margin is 74%. Always answer in English.", "gunnar", [], None, "global"),
    ("Don't use analogies like Vlad does.", "kirby", [], None, "global"),
    # facts only: who the user is, what the company is, never an instruction
    ("My name is Maya.", "gunnar", ["The user's name is Maya."], None, None),
    ("I'm Maya Chen.", "gunnar", [NAME], None, None),
    ("Call me Maya.", "gunnar", ["The user's name is Maya."], None, None),
    ("Our company is called Brightloop.", "vlad", [BRIGHTLOOP], None, None),
    ("I run Brightloop.", "vlad", ["The user runs Brightloop.", BRIGHTLOOP], None, None),
    ("We are based in Lisbon.", "kirby", ["The user's company is based in Lisbon."], None, None),
    # neither
    ("What is my name?", "gunnar", [], None, None),
    ("Thanks, that helps.", "gunnar", [], None, None),
]


@pytest.mark.parametrize(("message", "persona", "facts", "words", "scope"), RULE)
def test_a_message_is_read_into_facts_and_an_instruction_for_someone(
    message: str, persona: str, facts: list[str], words: str | None, scope: str | None
) -> None:
    reading = told(message, persona)
    assert [stated.fact.fact for stated in reading.facts] == facts
    assert reading.instruction.scope == scope
    assert reading.instruction.is_instruction is (scope is not None)
    if words is not None:
        assert reading.instruction_words == words


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("My name is Maya", "Maya"),
        ("my full name is Maya Chen.", "Maya Chen"),
        ("Hi, I'm Maya from Brightloop.", "Maya"),
        ("I am Jean-Luc O'Neil, and I run sales.", "Jean-Luc O'Neil"),
        ("Please call me Dr. Chen? No: call me Maya.", "Maya"),
        ("People call me Mo.", "Mo"),
        ("I go by Sam.", "Sam"),
    ],
)
def test_names_survive_into_facts(message: str, name: str) -> None:
    facts = [s.fact for s in remembered(message)]
    assert f"The user's name is {name}." in [f.fact for f in facts]
    assert all(f.kind == "user" for f in facts if "name is" in f.fact)


@pytest.mark.parametrize(
    "message",
    [
        "I'm sorry about the delay.",
        "I'm German.",
        "I am Happy with the plan.",
        "I'm tired today.",
        "Call me by my first name.",  # a request about how to answer, not a name
        "What is my name?",
        "If my name were Maya, would that help?",
    ],
)
def test_a_capitalised_word_is_not_always_a_name(message: str) -> None:
    assert not any("name is" in s.fact.fact for s in remembered(message))


@pytest.mark.parametrize(
    ("message", "company"),
    [
        ("Our company is called Brightloop.", "Brightloop"),
        ("My startup is named Acme Robotics.", "Acme Robotics"),
        ("I run Brightloop.", "Brightloop"),
        ("I founded Stark Data in 2019.", "Stark Data"),
        ("I am the head of Sales at Acme.", "Acme"),  # where the role is, not its department
        ("I'm Maya, CEO of Brightloop.", "Brightloop"),
        ("I work for Globex.", "Globex"),
    ],
)
def test_company_names_survive_into_company_facts(message: str, company: str) -> None:
    facts = [s.fact for s in remembered(message)]
    assert ("company", f"The user's company is called {company}.") in [
        (f.kind, f.fact) for f in facts
    ]


def test_a_department_is_no_company() -> None:
    assert [s.fact.fact for s in remembered("I am the Head of Sales.")] == [
        "The user is the Head of Sales."
    ]


@pytest.mark.parametrize(
    ("fact", "said"),
    [
        ("The user's name is Maya Chen.", "Your name is Maya Chen."),
        ("The user is the CEO of Brightloop.", "You are the CEO of Brightloop."),
        ("The user runs their sales team.", "You run your sales team."),
        ("The user prefers short meetings.", "You prefer short meetings."),
        ("The user would rather see the data first.", "You would rather see the data first."),
        ("The company's bottleneck is onboarding.", "Your company's bottleneck is onboarding."),
        ("The company keeps losing deals.", "Your company keeps losing deals."),
    ],
)
def test_a_stored_fact_is_said_back_to_the_user(fact: str, said: str) -> None:
    assert second_person(fact) == said


@pytest.mark.parametrize(
    ("message", "claimed", "persona", "expected"),
    [
        ("Always answer in English.", "ananya", "ananya", "global"),  # a model's slip
        ("Always answer in English.", None, "ananya", "global"),
        ("Vlad, never use sports analogies.", "global", "gunnar", "vlad"),
        ("Vlad, never use sports analogies.", "gunnar", "gunnar", "vlad"),
        ("Kirby and Vlad, stop hedging.", "vlad", "gunnar", "vlad"),  # the model's pick of two
        ("Everyone, and you too Vlad, stop hedging.", "vlad", "vlad", "global"),
    ],
)
def test_a_model_s_scope_is_held_to_the_rule(
    message: str, claimed: str | None, persona: str, expected: str
) -> None:
    assert held_scope(message, claimed, persona) == expected


def test_the_scope_is_worded_as_the_panel_and_the_acknowledgement_say_it() -> None:
    assert audience("global") == "every advisor"
    assert audience("vlad") == "Vlad"
    assert instruction_scope("Answer in English.", ("Answer in English.",), "gunnar") == "global"


@pytest.mark.parametrize(
    "unit",
    [
        "I am the head ",
        "I'm Maya ",
        "I am the CEO of ",
        "call me Maya Chen Lee ",
        "my name is ",
        "our company is called ",
        "I work at ",
        "you, Gunnar, ",
        "Vlad said ",
        "keep it short ",
        "no bullet ",
    ],
)
def test_reading_the_longest_imported_message_is_linear(unit: str) -> None:
    """Chat messages and imported turns reach the reader and the acknowledgement: a crafted one
    must not hold a worker (a nested pattern once took minutes on 14,000 characters)."""
    text = unit * (MAX_IMPORT_FIELD_CHARS // len(unit))
    gunnar = get_persona("gunnar")
    for read in (
        lambda t: told(t, "gunnar"),
        lambda t: acknowledgement(gunnar, t),
        lambda t: followed(Style(), t),
    ):
        assert_fast(read, text, 5.0)
