"""The offline answerer quotes its sources verbatim with citations, and refuses to guess."""

import uuid

import pytest

from shared.contracts import Citation, ContextBundle, ContextItem, ContextSection
from shared.domain import REFUSAL
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.text.citations import REF, split_claims
from shared.text.words import word_pieces
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle

GUNNAR = get_persona("gunnar")


async def answer(question: str, **bundle_options: object) -> tuple[str, bool]:
    bundle, passages = file_bundle({"pricing.md": PRICING, "hiring.md": HIRING}, **bundle_options)
    stream = LocalAnswerer().stream_answer(AnswerInput(GUNNAR, question, bundle, passages))
    text = "".join([piece async for piece in stream])
    assert stream.usage.completion_tokens > 0
    return text, stream.refused


async def test_the_answer_quotes_source_sentences_verbatim_each_with_its_ref() -> None:
    question = "What did we decide about the price of the Pro plan?"
    text, refused = await answer(question)
    assert not refused
    lead_in, body = text.split("\n\n")
    assert lead_in == GUNNAR.opening("fact", question)
    claims = split_claims(body)
    assert claims and all(len(claim.refs) == 1 for claim in claims)
    assert claims[0].refs == (1,)
    assert "raise the Pro plan to $49 per seat per month." in claims[0].statement
    for claim in claims:
        source = PRICING if claim.refs == (1,) else HIRING
        assert claim.statement in " ".join(source.split())


async def test_the_best_source_is_cited_first() -> None:
    text, _ = await answer("How many backend engineers will we hire?")
    assert REF.findall(text)[0] == "2"
    assert "We will hire two backend engineers in the second quarter. [Ref: 2]" in text


async def test_low_retrieval_confidence_gets_the_refusal_and_no_citations() -> None:
    text, refused = await answer("What did we decide about the Pro plan?", confidence=0.29)
    assert (text, refused) == (REFUSAL, True)


async def test_a_question_no_source_answers_gets_the_refusal() -> None:
    text, refused = await answer("What is the capital of Mongolia?")
    assert (text, refused) == (REFUSAL, True)
    assert not REF.search(text)


@pytest.mark.parametrize("text", ["", "one", "  two words  ", "a\n\nb [Ref: 1] c."])
def test_streamed_pieces_join_back_to_the_text(text: str) -> None:
    assert "".join(word_pieces(text)) == (text if text.strip() else "")


def with_item(bundle: ContextBundle, passages: dict[int, str], kind: str, text: str) -> int:
    """Add one more citable item of `kind` to the bundle; returns its ref."""
    ref = len(bundle.references) + 1
    item = ContextItem(kind=kind, id=uuid.uuid4(), text=text, tokens=20, ref=ref)
    bundle.sections.insert(0, ContextSection(name=kind, priority="P4", items=[item], tokens=20))
    bundle.references.append(Citation(ref=ref, turn_id=item.id, title=kind, snippet=text[:40]))
    passages[ref] = text
    return ref


async def test_questions_about_past_conversations_may_quote_the_journal() -> None:
    bundle, passages = file_bundle({"hiring.md": HIRING})
    cut = (
        "Boss: asked whether to open a Berlin office.\n"
        "gunnar: We agreed to open the Berlin office in May."
    )
    ref = with_item(bundle, passages, "journal", cut)
    request = AnswerInput(GUNNAR, "What did we decide about the Berlin office?", bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert f"open the Berlin office in May. [Ref: {ref}]" in text

    request = AnswerInput(GUNNAR, "Tell me about the Berlin office plan", bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert f"[Ref: {ref}]" in text  # no file answers it: what was said does


async def test_files_answer_before_the_journal_and_a_past_question_never_does() -> None:
    bundle, passages = file_bundle({"hiring.md": HIRING})
    asked = "User: How many backend engineers will we hire?\ngunnar: Let me look that up."
    with_item(bundle, passages, "turn", asked)
    echoed = "User: We will hire two backend engineers, I think.\ngunnar: Noted."
    with_item(bundle, passages, "journal", echoed)
    question = "How many backend engineers will we hire?"
    request = AnswerInput(GUNNAR, question, bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert REF.findall(text) == ["1"]  # the hiring plan, not the turns

    bundle, passages = file_bundle({"pricing.md": PRICING})
    with_item(bundle, passages, "turn", asked)
    request = AnswerInput(GUNNAR, question, bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert text == REFUSAL  # the user's own question is no evidence for it


async def test_summary_questions_quote_the_stored_summaries() -> None:
    bundle, passages = file_bundle({"hiring.md": HIRING}, path="summary")
    summary = "The plan hires two backend engineers. The budget is sixty thousand euros."
    ref = with_item(bundle, passages, "file_summary", summary)
    request = AnswerInput(GUNNAR, "Summarise my files", bundle, passages)
    text = "".join([piece async for piece in LocalAnswerer().stream_answer(request)])
    assert f"The plan hires two backend engineers. [Ref: {ref}]" in text
