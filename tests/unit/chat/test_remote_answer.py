"""Chat 1A streamed and 1B checked through the real openai client against the fake model server."""

from collections.abc import Iterator, Sequence

import pytest

from shared.config import ModelSettings
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.llm.answer import LLMAnswerChecker, LLMAnswerer
from shared.providers.remote import OpenAICompatibleChat
from shared.providers.remote.streaming import ThinkFilter
from shared.usage import ModelCall, WorkContext, set_usage_sink
from tests.fakes.llm_responder import prompt_name, realistic_responder, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle

INVENTED = "The board also approved an office in Lisbon. [Ref: 1]"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(realistic_responder) as fake:
        yield fake


@pytest.fixture
def calls() -> Iterator[list[ModelCall]]:
    recorded: list[ModelCall] = []

    async def sink(calls: Sequence[tuple[ModelCall, WorkContext | None]]) -> None:
        recorded.extend(call for call, _ in calls)

    set_usage_sink(sink)
    yield recorded
    set_usage_sink(None)


def chat(server: FakeModelServer) -> OpenAICompatibleChat:
    settings = ModelSettings(
        llm_base_url=server.base_url, llm_api_key="k", llm_model="m", llm_max_retries=0
    )
    return OpenAICompatibleChat(settings)


def request(question: str) -> AnswerInput:
    bundle, passages = file_bundle({"pricing.md": PRICING, "hiring.md": HIRING})
    return AnswerInput(get_persona("vlad"), question, bundle, passages)


async def test_tokens_stream_in_pieces_and_usage_comes_from_the_server(
    server: FakeModelServer, calls: list[ModelCall]
) -> None:
    server.reset()
    stream = LLMAnswerer(chat(server)).stream_answer(request("What is the Pro plan price?"))
    pieces = [piece async for piece in stream]
    assert len(pieces) > 5
    answer = "".join(pieces)
    assert "$49 per seat per month. [Ref: 1]" in answer and not stream.refused
    [sent] = server.chat_requests
    assert sent.json["stream"] is True
    assert sent.json["stream_options"] == {"include_usage": True}
    assert prompt_name(sent.json) == "chat_1a"
    assert stream.usage.prompt_tokens > 100 and stream.usage.completion_tokens > 5
    [call] = calls
    assert (call.role, call.outcome, call.completion_tokens) == (
        "answer",
        "ok",
        stream.usage.completion_tokens,
    )


async def test_a_question_the_sources_do_not_answer_is_refused(server: FakeModelServer) -> None:
    stream = LLMAnswerer(chat(server)).stream_answer(request("Who won the 1998 World Cup?"))
    answer = "".join([piece async for piece in stream])
    assert stream.refused and "[Ref:" not in answer


async def test_the_check_removes_an_unsupported_sentence(server: FakeModelServer) -> None:
    server.reset()
    answer = f"Pro is $49 per seat per month. [Ref: 1] {INVENTED} Hiring: two. [Ref: 5]"
    checked = await LLMAnswerChecker(chat(server)).check_answer(request("price?"), answer)
    assert checked.answer == "Pro is $49 per seat per month. [Ref: 1]"
    assert checked.removed == ["The board also approved an office in Lisbon.", "Hiring: two."]
    assert prompt_name(server.chat_requests[0].json) == "chat_1b"


async def test_a_checker_keeping_an_unknown_ref_is_overruled(server: FakeModelServer) -> None:
    server.responder = scripted_responder(
        {"chat_1b": lambda v: {"answer": v["answer"], "removed": []}}
    )
    try:
        answer = "Pro is $49 per seat per month. [Ref: 1] Two hires. [Ref: 9]"
        checked = await LLMAnswerChecker(chat(server)).check_answer(request("price?"), answer)
    finally:
        server.responder = realistic_responder
    assert (checked.answer, checked.removed) == (
        "Pro is $49 per seat per month. [Ref: 1]",
        ["Two hires."],
    )


async def test_a_checker_keeping_a_claim_its_passage_cannot_answer_is_overruled(
    server: FakeModelServer,
) -> None:
    """The same evidence rule as the local answerer: a "when" question needs a passage with a
    date, a question about Stefan one that names him."""
    server.responder = scripted_responder(
        {"chat_1b": lambda v: {"answer": v["answer"], "removed": []}}
    )
    hiring = f"Interviews are run by Stefan. [Ref: {ref_of(HIRING)}]"
    pricing = f"Existing customers keep the old price. [Ref: {ref_of(PRICING)}]"
    try:
        checker = LLMAnswerChecker(chat(server))
        undated = await checker.check_answer(request("When are the interviews?"), hiring)
        named = await checker.check_answer(request("Who runs interviews with Stefan?"), hiring)
        elsewhere = await checker.check_answer(request("What does Stefan pay?"), pricing)
        dated = await checker.check_answer(request("When does the old price end?"), pricing)
    finally:
        server.responder = realistic_responder
    assert (undated.answer, undated.removed) == ("", ["Interviews are run by Stefan."])
    assert named.answer == hiring and dated.answer == pricing
    assert elsewhere.answer == ""


def ref_of(passage: str) -> int:
    _, passages = file_bundle({"pricing.md": PRICING, "hiring.md": HIRING})
    return next(ref for ref, text in passages.items() if passage.strip() in text)


@pytest.mark.parametrize(
    "pieces",
    [["<think>plan</think>Answer"], ["<thi", "nk>pl", "an</th", "ink>Ans", "wer"], ["Answer"]],
)
def test_reasoning_is_dropped_from_the_stream(pieces: list[str]) -> None:
    think = ThinkFilter()
    assert "".join(think.feed(piece) for piece in pieces) + think.flush() == "Answer"
