"""Offline, a question that asks for advice gets the records, said to be the records: the
persona's honest opening, then the decisions and facts on its topic; nothing unrelated."""

from shared.domain import REFUSAL
from shared.personas import load_personas
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.text.citations import split_claims
from tests.fixtures.board_meeting import BOARD_MEETING
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle

DOCUMENTS = {"board.md": BOARD_MEETING, "pricing.md": PRICING, "hiring.md": HIRING}


async def answer(persona: str, question: str) -> tuple[str, bool]:
    bundle, passages = file_bundle(DOCUMENTS)
    request = AnswerInput(load_personas()[persona], question, bundle, passages)
    stream = LocalAnswerer().stream_answer(request)
    return "".join([piece async for piece in stream]), stream.refused


async def test_an_advice_question_quotes_the_decisions_on_its_topic_framed_as_records() -> None:
    question = "What should we do about fundraising?"
    text, refused = await answer("gunnar", question)
    assert not refused
    opening, body = text.split("\n\n")
    assert opening == load_personas()["gunnar"].opening("advice", question)
    said = [claim.statement for claim in split_claims(body) if claim.refs]
    assert said[0].startswith("After a long discussion we decided to raise a $3M seed extension")
    assert all(statement in " ".join(BOARD_MEETING.split()) for statement in said)


async def test_every_persona_frames_advice_honestly_in_its_own_words() -> None:
    question = "Do you think we should change the Pro plan price?"
    openings = set()
    for name, persona in load_personas().items():
        text, refused = await answer(name, question)
        assert not refused, name
        opening = text.split("\n\n")[0]
        assert opening == persona.opening("advice", question)
        assert "model" in opening.lower() or "advise" in opening.lower(), opening
        openings.add(opening)
    assert len(openings) == len(load_personas())


async def test_advice_on_a_topic_no_record_covers_gets_the_refusal_not_unrelated_quotes() -> None:
    for question in (
        "Do you think we should open an office in Tokyo?",
        "What would you recommend?",  # no topic at all
        "Should we think about our brand colours?",
    ):
        assert await answer("kirby", question) == (REFUSAL, True), question
