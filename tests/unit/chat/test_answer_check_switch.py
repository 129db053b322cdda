"""ChatSettings.answer_check switches call 1B off; a refusal is never checked."""

from services.chat.answering import checked_outcome
from shared.domain import REFUSAL
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from tests.unit.chat.bundles import PRICING, file_bundle

DRAFT = "Pro is $49 per seat per month. [Ref: 1] The office moves to Lisbon. [Ref: 1]"


def answer_input() -> AnswerInput:
    bundle, passages = file_bundle({"pricing.md": PRICING})
    return AnswerInput(get_persona("vlad"), "price?", bundle, passages)


async def test_with_the_check_on_an_unsupported_sentence_is_removed() -> None:
    request = answer_input()
    outcome = await checked_outcome(
        request, DRAFT, LocalAnswerer().stream_answer(request), enabled=True
    )
    assert outcome.answer == "Pro is $49 per seat per month. [Ref: 1]"
    assert outcome.removed == ["The office moves to Lisbon."]


async def test_with_the_check_off_the_draft_is_kept_as_written() -> None:
    request = answer_input()
    outcome = await checked_outcome(
        request, DRAFT, LocalAnswerer().stream_answer(request), enabled=False
    )
    assert (outcome.answer, outcome.removed) == (DRAFT, [])


async def test_a_refusal_is_not_checked() -> None:
    request = answer_input()
    stream = LocalAnswerer().stream_answer(request)
    stream.refused = True
    outcome = await checked_outcome(request, "I can't find that.", stream, enabled=True)
    assert (outcome.refused, outcome.removed) == (True, [])


async def test_a_check_that_removes_every_cited_sentence_makes_the_refusal() -> None:
    request = answer_input()
    draft = f"{request.persona.lead_in}\n\nThe office moves to Lisbon. [Ref: 1]"
    outcome = await checked_outcome(
        request, draft, LocalAnswerer().stream_answer(request), enabled=True
    )
    assert (outcome.answer, outcome.refused) == (REFUSAL, True)
    assert outcome.removed == ["The office moves to Lisbon."]
