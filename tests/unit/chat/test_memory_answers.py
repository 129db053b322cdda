"""Offline answers use what the user told Artisan: questions about the user or the company are
answered from memory facts (cited as memory, before any file), and the persona's instructions
shape the answer (brief, a word limit, bullet points)."""

import uuid

import pytest

from shared.contracts import Citation, ContextBundle, ContextItem, ContextSection
from shared.domain import REFUSAL
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.providers.local.answer_check import check_answer_text
from shared.providers.local.style import Style, followed
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle

FACTS = [
    ("user", "The user's name is Maya Chen."),
    ("user", "The user is the CEO of Brightloop."),
    ("company", "The user's company is called Brightloop."),
    ("company", "The user's company is based in Lisbon."),
    ("company", "The company's bottleneck is onboarding."),
]
DESIGN = (
    "# Design notes\n"
    "The company dashboard is called Lumen. Our company design system is called Prism.\n"
)


def bundle_with(
    facts: list[tuple[str, str]], instructions: list[str], *, confidence: float = 0.8
) -> tuple[ContextBundle, dict[int, str]]:
    """A bundle as the context service builds it: P3 instructions, then memory facts (refs
    1..n, each citing itself), then the files."""
    files, file_passages = file_bundle(
        {"pricing.md": PRICING, "hiring.md": HIRING, "design.md": DESIGN}, confidence=confidence
    )
    shift = len(facts)
    memory, references, passages = [], [], {}
    for ref, (kind, fact) in enumerate(facts, start=1):
        fact_id = uuid.uuid4()
        text = f"About the {kind}: {fact}"
        memory.append(ContextItem(kind="memory_fact", id=fact_id, text=text, tokens=9, ref=ref))
        title = "About you" if kind == "user" else "About your company"
        references.append(Citation(ref=ref, fact_id=fact_id, title=title, snippet=fact))
        passages[ref] = fact
    for reference in files.references:
        references.append(reference.model_copy(update={"ref": reference.ref + shift}))
        passages[reference.ref + shift] = file_passages[reference.ref]
    [file_section] = files.sections
    file_items = [item.model_copy(update={"ref": item.ref + shift}) for item in file_section.items]
    rules = [
        ContextItem(
            kind="instruction",
            id=uuid.uuid4(),
            text=f"Instruction for all personas (given 2026-11-20 10:00): {said}",
            tokens=9,
        )
        for said in instructions
    ]
    sections = [
        ContextSection(name="instructions", priority="P3", items=rules),
        ContextSection(name="memory", priority="P3", items=memory),
        file_section.model_copy(update={"items": file_items}),
    ]
    return files.model_copy(update={"sections": sections, "references": references}), passages


async def answer(
    question: str, facts: list[tuple[str, str]] = FACTS, instructions: list[str] = (), **kw: float
) -> str:
    bundle, passages = bundle_with(facts, list(instructions), **kw)
    request = AnswerInput(get_persona("vlad"), question, bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert check_answer_text(text, passages).answer == text  # call 1B keeps it as it is
    return text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is my name?", "Your name is Maya Chen. [Ref: 1]"),
        ("What’s my name?", "Your name is Maya Chen. [Ref: 1]"),
        ("Who am I?", "Your name is Maya Chen. [Ref: 1]"),
        ("What is my company called?", "Your company is called Brightloop. [Ref: 3]"),
        ("What's the name of our company?", "Your company is called Brightloop. [Ref: 3]"),
        ("What's my role?", "You are the CEO of Brightloop. [Ref: 2]"),
        ("Where is our company based?", "Your company is based in Lisbon. [Ref: 4]"),
        ("What is our biggest bottleneck?", "Your company's bottleneck is onboarding. [Ref: 5]"),
    ],
)
async def test_questions_about_the_user_are_answered_from_memory_facts(
    question: str, expected: str
) -> None:
    assert await answer(question) == expected


async def test_a_memory_answer_needs_no_file_and_outranks_one_that_shares_its_words() -> None:
    # the design notes say "company ... is called": the fact about the user's company wins
    assert await answer("What is my company called?", confidence=0.0) == (
        "Your company is called Brightloop. [Ref: 3]"
    )


async def test_the_newest_fact_on_a_topic_answers() -> None:
    facts = [("user", "The user's name is Maya."), ("user", "The user's name is Maya Chen.")]
    assert await answer("What is my name?", facts) == "Your name is Maya Chen. [Ref: 2]"


@pytest.mark.parametrize(
    "question",
    [
        "What is Vlad's name?",  # not about the user
        "What is the name of the dashboard?",
    ],
)
async def test_other_questions_are_not_answered_from_memory(question: str) -> None:
    text = await answer(question)
    assert "[Ref: 1]" not in text and "Your name" not in text


async def test_without_a_fact_on_the_topic_a_question_about_the_user_is_refused() -> None:
    assert await answer("What is my name?", facts=[], confidence=0.0) == REFUSAL


QUESTION = "What is the price of the plan?"


async def test_answers_follow_the_persona_s_instructions() -> None:
    plain = await answer(QUESTION)
    assert plain.count("[Ref:") >= 2 and "\n\n" in plain  # the opening, then several quotes

    brief = await answer(QUESTION, instructions=["I prefer short answers."])
    best = plain.split("\n\n", 1)[1].split("] ")[0] + "]"
    assert brief == best  # the best sentence alone, without the opening

    bullets = await answer(QUESTION, instructions=["Always answer in bullet points."])
    assert [line[:2] for line in bullets.split("\n\n", 1)[1].splitlines()] == ["- "] * (
        plain.count("[Ref:")
    )

    stopped = await answer(
        QUESTION, instructions=["Always answer in bullet points.", "Stop using bullet points."]
    )
    assert stopped == plain  # the newest instruction wins


@pytest.mark.parametrize(
    ("instructions", "expected"),
    [
        (["I prefer short answers."], Style(brief=True)),
        (["Keep it short."], Style(brief=True)),
        (["Be concise."], Style(brief=True)),
        (["Avoid long-winded explanations."], Style(brief=True)),
        (["Answer in one sentence."], Style(brief=True)),
        (["Keep your answers under 50 words."], Style(word_limit=50)),
        (["Always answer in bullet points."], Style(bullets=True)),
        (["Format answers as a list."], Style(bullets=True)),
        (["Keep it short.", "Give me longer answers with more detail."], Style()),
        (["Answer in bullet points.", "Never use bullet points."], Style()),
        (["Keep it short.", "Use bullet points."], Style(brief=True, bullets=True)),
        (["Never use sports analogies.", "Always answer in English."], Style()),
    ],
)
def test_the_kinds_of_instruction_the_offline_answerer_follows(
    instructions: list[str], expected: Style
) -> None:
    style = Style()
    for said in instructions:
        style = followed(style, said)
    assert style == expected
