"""A failed answer is told in words (issue 28, part 6): the errors the real openai client raises
against the fake model server, as the asker hears them: what happened and what to do, never an
exception's name, the endpoint's address, its error body or a setting's name."""

from collections.abc import Awaitable, Callable, Iterator

import pytest
from pydantic import BaseModel

from services.chat.failures import in_words
from shared.config import ModelSettings
from shared.providers.remote import OpenAICompatibleChat
from shared.providers.remote.structured import forget_dialects
from tests.fakes.model_server import FakeModelServer

MODEL = "writer-7b"
BODY = "upstream pod gpu-17.internal overloaded (trace 9f3e)"  # the provider's own words


class Reply(BaseModel):
    reply: str


@pytest.fixture(scope="module")
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(lambda request: '{"reply": "ok"}') as fake:
        yield fake


def chat(server: FakeModelServer, **overrides: object) -> OpenAICompatibleChat:
    """A client met afresh, on a server with nothing scripted yet."""
    forget_dialects()
    server.reset()
    settings = {"llm_base_url": server.base_url, "llm_api_key": "sk-k", "llm_model": MODEL}
    return OpenAICompatibleChat(ModelSettings(**(settings | {"llm_max_retries": 0} | overrides)))


async def json_call(model: OpenAICompatibleChat) -> None:
    await model.complete_json(role="chat_1b", system="Check.", user="Draft.", schema=Reply)


async def streamed_answer(model: OpenAICompatibleChat) -> None:
    async for _ in model.stream_text(role="chat_1a", system="Answer.", user="Question?"):
        pass


async def failure_of(call: Callable[[], Awaitable[None]]) -> Exception:
    with pytest.raises(Exception) as failure:
        await call()
    return failure.value


def assert_told_plainly(told: str, exc: Exception, server: FakeModelServer) -> None:
    assert type(exc).__name__ not in told and "Error" not in told
    assert "127.0.0.1" not in told and server.base_url not in told and "http" not in told
    assert "gpu-17" not in told and "ARTISAN_" not in told and "chat_1" not in told
    assert told.endswith(".") and MODEL in told


async def test_a_model_that_fails_is_said_not_to_answer(server: FakeModelServer) -> None:
    model = chat(server)
    server.fail_with(500, body={"error": {"message": BODY}})
    exc = await failure_of(lambda: streamed_answer(model))
    told = in_words(exc, MODEL)
    assert_told_plainly(told, exc, server)
    assert told.startswith(f"The language model ({MODEL}) did not answer: it may be down or busy")
    assert "Try again in a moment" in told


async def test_a_refused_key_sends_the_admin_to_test_connection(server: FakeModelServer) -> None:
    model = chat(server)
    server.fail_with(401, body={"error": {"message": f"bad key sk-k: {BODY}"}})
    exc = await failure_of(lambda: streamed_answer(model))
    told = in_words(exc, MODEL)
    assert_told_plainly(told, exc, server)
    assert "refused the request" in told and "Test connection in Settings" in told
    assert "sk-k" not in told


async def test_a_model_too_slow_is_said_to_be_too_slow(server: FakeModelServer) -> None:
    model = chat(server, llm_timeout_seconds=0.3)
    server.delay(1.0)
    exc = await failure_of(lambda: json_call(model))
    told = in_words(exc, MODEL)
    assert_told_plainly(told, exc, server)
    assert "took too long" in told and "choose a faster model in Settings" in told


async def test_an_answer_in_the_wrong_form_is_said_so(server: FakeModelServer) -> None:
    model = chat(server)
    server.reply_raw(f"I cannot comply. {BODY}", times=2)  # the reply, then the repair's
    exc = await failure_of(lambda: json_call(model))
    told = in_words(exc, MODEL)
    assert_told_plainly(told, exc, server)
    assert "answered in a form Artisan could not use" in told


def test_anything_else_is_said_without_its_name() -> None:
    told = in_words(KeyError("chunk_index"), MODEL)
    assert told == "Something went wrong while answering. Try again in a moment."
    gathering = in_words(TimeoutError(), MODEL)
    assert "Gathering your files and memory" in gathering and "Timeout" not in gathering
