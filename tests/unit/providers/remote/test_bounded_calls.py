"""Every model call is bounded (issue 28): its role's output budget, a deadline that follows from
it, and the reply's shape asked for the way the endpoint takes it — learnt from its refusals and
remembered, so a model that rambles or a server that refuses costs one bounded attempt."""

from collections.abc import Callable

import pytest
from pydantic import BaseModel

from shared.config import ModelSettings
from shared.errors import ModelOutputError
from shared.providers.llm import LLMClassifier
from shared.providers.local import LocalClassifier
from shared.providers.registry import OfflineFallback
from shared.providers.remote import OpenAICompatibleChat
from shared.providers.remote.budgets import deadline_seconds, output_budget
from shared.usage import ModelCall
from tests.fakes.model_server import FakeModelServer

Settings = Callable[..., ModelSettings]
NO_JSON_SCHEMA = {"error": {"message": "response_format type 'json_schema' is not supported"}}
NO_FORMAT = {"error": {"message": "'response_format' of type 'json_object' is not supported"}}
NO_MAX_TOKENS = {
    "error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model."
        " Use 'max_completion_tokens' instead.",
        "param": "max_tokens",
    }
}


class Label(BaseModel):
    label: str


async def _label(chat: OpenAICompatibleChat, role: str = "classify") -> Label:
    return await chat.complete_json(role=role, system="Label it.", user="A note.", schema=Label)


def test_a_deadline_is_the_budget_written_slowly_and_never_past_the_timeout() -> None:
    assert deadline_seconds(0, 128, 120) == pytest.approx(10 + 128 / 8)
    assert deadline_seconds(2_000, 300, 120) == pytest.approx(10 + 50 + 37.5)
    assert deadline_seconds(2_000, 300, 120) > deadline_seconds(2_000, 128, 120)
    assert deadline_seconds(100_000, 3_000, 120) == 120
    assert output_budget("classify") < output_budget("compress") < output_budget("chunk")


async def test_each_role_asks_for_at_most_its_budget(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: '{"label": "x"}'
    chat = OpenAICompatibleChat(make_settings())
    for role in ("classify", "compress", "chunk"):
        await _label(chat, role)
    assert [r.json["max_tokens"] for r in server.chat_requests] == [128, 600, 3000]


async def test_an_endpoint_without_json_schema_is_asked_for_json_objects_from_then_on(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: '{"label": "x"}'
    server.fail_with(400, body=NO_JSON_SCHEMA)
    chat = OpenAICompatibleChat(make_settings())
    assert await _label(chat) == Label(label="x")
    assert await _label(chat) == Label(label="x")
    formats = [r.json["response_format"]["type"] for r in server.chat_requests]
    assert formats == ["json_schema", "json_object", "json_object"]  # learnt once


async def test_an_endpoint_without_any_format_gets_the_schema_in_the_prompt(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: '{"label": "x"}'
    server.fail_with(400, body=NO_JSON_SCHEMA)
    server.fail_with(400, body=NO_FORMAT)
    assert await _label(OpenAICompatibleChat(make_settings())) == Label(label="x")
    plain = server.chat_requests[-1].json
    assert "response_format" not in plain
    assert '"label"' in plain["messages"][0]["content"]  # the schema, spelled out


async def test_an_endpoint_that_takes_only_max_completion_tokens_gets_that(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: '{"label": "x"}'
    server.fail_with(400, body=NO_MAX_TOKENS)
    assert await _label(OpenAICompatibleChat(make_settings())) == Label(label="x")
    retried = server.chat_requests[-1].json
    assert retried["max_completion_tokens"] == 128 and "max_tokens" not in retried


async def test_a_model_that_rambles_costs_two_bounded_calls_and_says_so(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.reply_raw('{"label": "it goes on and on and', times=2, cut_off=True)
    with pytest.raises(ModelOutputError) as raised:
        await _label(OpenAICompatibleChat(make_settings(llm_model="small-model")))
    assert len(server.chat_requests) == 2  # the call and its one repair, nothing more
    message = str(raised.value)
    assert "small-model" in message and "budget of 128 tokens" in message


async def test_a_streamed_answer_stops_at_its_budget(
    server: FakeModelServer, make_settings: Settings
) -> None:
    server.responder = lambda request: "A short answer."
    stream = OpenAICompatibleChat(make_settings()).stream_text(
        role="answer", system="Answer.", user="Why?"
    )
    assert "".join([piece async for piece in stream]) == "A short answer."
    assert server.chat_requests[-1].json["max_tokens"] == output_budget("answer")


async def test_a_file_type_the_model_cannot_give_is_the_offline_rules_and_recorded_so(
    server: FakeModelServer, make_settings: Settings, usage_calls: list[ModelCall]
) -> None:
    server.reply_raw('{"file_type": "a memo, I think, because', times=2, cut_off=True)
    model = LLMClassifier(OpenAICompatibleChat(make_settings()))
    classifier = OfflineFallback(model, LocalClassifier())
    note = "We decided to move to usage-based pricing from April, because customers asked."
    assert await classifier.classify_file(note) == await LocalClassifier().classify_file(note)
    assert [(c.provider, c.outcome) for c in usage_calls] == [
        ("openai-compatible", "invalid"),
        ("openai-compatible", "invalid"),
        ("local", "fallback"),
    ]


async def test_a_web_page_where_a_model_should_answer_is_a_clear_failure(
    server: FakeModelServer, make_settings: Settings
) -> None:
    chat = OpenAICompatibleChat(make_settings())
    page = "<html><body>Welcome to the router</body></html>"
    server.fail_with(200, headers={"Content-Type": "text/html"}, body=page)
    with pytest.raises(ModelOutputError, match="not with an OpenAI-compatible chat reply"):
        await _label(chat)
    assert len(server.chat_requests) == 1  # one bounded attempt: a page is not worth a retry
