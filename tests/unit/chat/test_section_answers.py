"""Offline, a note's own lists answer the questions that ask for them (issue 28): its decisions,
its action items, each item quoted and cited in the note's order — and a topic narrows them."""

import pytest

from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.text.citations import split_claims
from tests.fixtures.founder_note import ACTION_ITEMS, DECISIONS, FOUNDER_NOTE
from tests.unit.chat.bundles import HIRING, file_bundle


async def answer(question: str) -> str:
    bundle, passages = file_bundle(
        {"leadership-sync.md": FOUNDER_NOTE, "hiring.md": HIRING}, query=question
    )
    stream = LocalAnswerer().stream_answer(
        AnswerInput(get_persona("gunnar"), question, bundle, passages)
    )
    return "".join([piece async for piece in stream])


def quoted(text: str) -> list[str]:
    return [claim.statement.removeprefix("- ") for claim in split_claims(text.split("\n\n", 1)[1])]


@pytest.mark.parametrize(
    "question",
    [
        "Which decisions did we take at the leadership sync?",
        "What did we decide?",
        "What were the decisions?",
    ],
)
async def test_the_decisions_asked_for_are_the_notes_decisions(question: str) -> None:
    text = await answer(question)
    assert quoted(text) == DECISIONS, text
    assert text.count("[Ref: 1]") == len(DECISIONS)


@pytest.mark.parametrize("question", ["List the action items", "What are the next steps?"])
async def test_the_action_items_asked_for_are_the_notes_action_items(question: str) -> None:
    text = await answer(question)
    assert quoted(text) == [item for item, _, _ in ACTION_ITEMS], text


async def test_a_topic_narrows_the_list_to_the_items_that_speak_of_it() -> None:
    text = await answer("What did we decide about pricing?")
    assert quoted(text) == [DECISIONS[0]], text


async def test_a_figure_is_never_listed_as_a_decision() -> None:
    assert "Gross margin" not in await answer("Which decisions did we take?")
