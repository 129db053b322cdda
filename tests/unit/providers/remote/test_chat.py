"""OpenAICompatibleChat with the real openai client against the fake model server."""

import asyncio
import json
import time
from collections.abc import Callable
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from shared.config import ModelSettings
from shared.errors import (
    ModelOutputError,
    ModelTooSlowError,
    ModelUnavailableError,
    PermanentError,
)
from shared.launcher.embedded import free_port
from shared.providers.remote import ModelRequestRejectedError, OpenAICompatibleChat
from shared.usage import ModelCall
from tests.fakes.model_server import FakeModelServer

Settings = Callable[..., ModelSettings]
VALID = '{"file_type": "strategic", "confidence": 0.8}'


class Verdict(BaseModel):
    file_type: Literal["strategic", "factual", "mixed"]
    confidence: float = Field(ge=0, le=1)


async def _classify(chat: OpenAICompatibleChat) -> Verdict:
    return await chat.complete_json(
        role="classify", system="Classify the file.", user="Pricing decisions.", schema=Verdict
    )


async def test_a_valid_answer_is_parsed_into_the_schema(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: VALID
    verdict = await _classify(OpenAICompatibleChat(make_settings()))

    assert verdict == Verdict(file_type="strategic", confidence=0.8)
    [request] = server.chat_requests
    assert request.json["model"] == "test-chat-model"
    assert request.json["temperature"] == 0
    assert request.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": Verdict.model_json_schema()},
    }
    assert request.json["max_tokens"] == 128  # the classify role's output budget
    assert [m["role"] for m in request.json["messages"]] == ["system", "user"]
    assert request.headers["authorization"] == "Bearer test-key"


@pytest.mark.parametrize(
    "content",
    [
        f"<think>\nThe user wants a label. Strategic.\n</think>\n\n{VALID}",
        f"```json\n{VALID}\n```",
        f"<think>reasoning</think>\nHere it is:\n```json\n{VALID}\n```\nDone.",
        f"reasoning whose opening tag the template added\n</think>\n{VALID}",
        f"Sure! {VALID}",
    ],
)
async def test_reasoning_fences_and_prose_are_stripped_before_parsing(
    server: FakeModelServer, make_settings: Settings, content: str
) -> None:
    server.reply_raw(content)
    verdict = await _classify(OpenAICompatibleChat(make_settings()))
    assert verdict.file_type == "strategic"
    assert len(server.chat_requests) == 1


async def test_a_malformed_answer_is_repaired_by_a_second_call_that_shows_the_error(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.responder = lambda request: VALID
    server.reply_raw('{"file_type": "strategic", "confidence": 7}')

    verdict = await _classify(OpenAICompatibleChat(make_settings()))

    assert verdict.confidence == 0.8
    first, second = server.chat_requests
    messages = second.json["messages"]
    assert messages[:2] == first.json["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": '{"file_type": "strategic", "confidence": 7}',
    }
    assert messages[3]["role"] == "user"
    assert "confidence: Input should be less than or equal to 1" in messages[3]["content"]
    assert [call.outcome for call in usage_calls] == ["invalid", "ok"]


async def test_an_answer_still_invalid_after_the_repair_fails_clearly(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.reply_raw("I think this file is strategic.", times=2)

    with pytest.raises(ModelOutputError) as failure:
        await _classify(OpenAICompatibleChat(make_settings()))

    message = str(failure.value)
    assert "test-chat-model" in message and "classify" in message
    assert "Invalid JSON" in message
    assert isinstance(failure.value, PermanentError)
    assert len(server.chat_requests) == 2
    assert [call.outcome for call in usage_calls] == ["invalid", "invalid"]


async def test_a_429_with_retry_after_is_waited_out_then_succeeds(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: VALID
    server.fail_with(429, headers={"Retry-After": "1"})

    verdict = await _classify(OpenAICompatibleChat(make_settings()))

    assert verdict.file_type == "strategic"
    first, second = server.chat_requests
    assert second.received - first.received >= 0.9


async def test_a_server_error_is_retried_by_the_client(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: VALID
    server.fail_with(503, headers={"retry-after-ms": "50"})
    assert (await _classify(OpenAICompatibleChat(make_settings()))).confidence == 0.8
    assert len(server.chat_requests) == 2


async def test_a_call_past_its_deadline_is_one_attempt_that_names_the_model(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    """A stall is not retried: the same call would stall again (issue 28: four 120 s attempts
    per step kept a note in `classifying` for 8 minutes)."""
    server.delay(0.6, times=2)
    chat = OpenAICompatibleChat(
        make_settings(llm_model="slow-model", llm_timeout_seconds=0.3, llm_max_retries=1)
    )

    started = time.monotonic()
    with pytest.raises(ModelTooSlowError) as failure:
        await _classify(chat)

    assert time.monotonic() - started < 2
    assert len(server.chat_requests) == 1
    message = str(failure.value)
    assert "slow-model did not finish the classify call within 0.3 s" in message
    assert "ARTISAN_LLM_ROLES=answers" in message
    assert [call.outcome for call in usage_calls] == ["error"]


async def test_a_rejected_api_key_fails_permanently_and_names_the_setting(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.fail_with(401, body={"error": {"message": "invalid api key"}})

    with pytest.raises(ModelRequestRejectedError) as failure:
        await _classify(OpenAICompatibleChat(make_settings()))

    assert "rejected the API key (ARTISAN_LLM_API_KEY)" in str(failure.value)
    assert len(server.chat_requests) == 1  # a 4xx is never retried
    assert usage_calls[0].outcome == "error"


async def test_an_unreachable_endpoint_is_unavailable(make_settings: Settings) -> None:
    chat = OpenAICompatibleChat(
        make_settings(llm_base_url=f"http://127.0.0.1:{free_port()}/v1", llm_max_retries=0)
    )
    with pytest.raises(ModelUnavailableError, match="connection failed"):
        await _classify(chat)


async def test_usage_is_recorded_from_the_response(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.responder = lambda request: VALID
    await _classify(OpenAICompatibleChat(make_settings()))

    [call] = usage_calls
    assert (call.role, call.provider, call.model) == (
        "classify",
        "openai-compatible",
        "test-chat-model",
    )
    assert call.prompt_tokens > 0 and call.completion_tokens > 0
    assert call.outcome == "ok" and call.latency_ms >= 0


async def test_the_concurrency_limit_holds_across_instances(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: json.dumps({"file_type": "factual", "confidence": 1})
    server.latency = 0.3
    settings = make_settings(llm_concurrency=2)
    chats = [OpenAICompatibleChat(settings) for _ in range(3)]

    started = time.monotonic()
    await asyncio.gather(*(_classify(chats[i % 3]) for i in range(6)))

    assert time.monotonic() - started >= 0.85  # 6 calls, 2 at a time, 0.3 s each
    assert server.max_in_flight == 2
