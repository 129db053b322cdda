"""From an OpenAI request to Artisan's terms, and the OpenAI shapes of its answer and errors."""

import json
import uuid

import pytest

from services.gateway.openai_compat.errors import OpenAIHTTPError, openai_error_body, speaks_openai
from services.gateway.openai_compat.messages import caller_context, persona_for_model, question_of
from services.gateway.openai_compat.replies import Reply
from services.gateway.openai_compat.schemas import ChatMessage
from shared.contracts import ChatDone, Usage


def messages(*pairs: tuple[str, object]) -> list[ChatMessage]:
    return [ChatMessage(role=role, content=content) for role, content in pairs]  # type: ignore[arg-type]


def test_a_model_names_a_persona_and_an_unknown_one_lists_the_models() -> None:
    assert persona_for_model("artisan-gunnar").name == "gunnar"
    assert persona_for_model("gunnar").name == "gunnar"
    with pytest.raises(OpenAIHTTPError) as raised:
        persona_for_model("gpt-4o")
    assert raised.value.status_code == 404 and raised.value.code == "model_not_found"
    assert "artisan-gunnar" in raised.value.detail and "'gpt-4o'" in raised.value.detail


def test_the_question_is_the_last_user_message_and_text_parts_are_read() -> None:
    chat = messages(
        ("system", "Be brief."),
        ("user", "first"),
        ("assistant", "an answer"),
        ("user", [{"type": "text", "text": "second"}, {"type": "image_url", "image_url": {}}]),
        ("assistant", None),
    )
    index = question_of(chat)
    assert (index, chat[index].text) == (3, "second")
    with pytest.raises(OpenAIHTTPError) as raised:
        question_of(messages(("system", "Be brief."), ("assistant", "Hello")))
    assert raised.value.status_code == 400


def test_the_context_is_what_came_before_and_every_instruction() -> None:
    chat = messages(
        ("system", "Be brief."),
        *[(role, f"{role} {n}") for n in range(6) for role in ("user", "assistant")],
        ("tool", "ignored"),
        ("user", "the question"),
        ("developer", "Cite everything."),
    )
    context = caller_context(chat, len(chat) - 2, recent_turns=2, max_chars=6)
    # the last two turns' messages, each cut at max_chars; the tool message is not the caller's
    assert context == [
        ("system", "Be bri"),
        ("user", "user 4"),
        ("assistant", "assist"),
        ("user", "user 5"),
        ("assistant", "assist"),
        ("developer", "Cite e"),
    ]


def test_errors_take_openais_shape_on_its_paths_only() -> None:
    assert speaks_openai("/v1/chat/completions") and speaks_openai("/v1/models/artisan-vlad")
    assert not speaks_openai("/v1/chat") and not speaks_openai("/v1/settings/models")
    error = OpenAIHTTPError(404, "no such model", code="model_not_found", param="model")
    assert openai_error_body(404, "no such model", error) == {
        "error": {
            "message": "no such model",
            "type": "invalid_request_error",
            "param": "model",
            "code": "model_not_found",
        }
    }
    assert openai_error_body(401, "Invalid API key.")["error"]["code"] == "invalid_api_key"
    assert openai_error_body(503, "down")["error"]["type"] == "server_error"


def test_a_streamed_answer_ends_with_its_citations_usage_and_done() -> None:
    done = ChatDone(
        turn_id=uuid.uuid4(),
        conversation_id=uuid.uuid4(),
        persona="gunnar",
        answer="Usage tiers [Ref: 1].",
        citations=[],
        sections=[],
        usage=Usage(model="local", prompt_tokens=40, completion_tokens=5),
    )
    reply = Reply("chatcmpl-1", 1_700_000_000, "artisan-gunnar")
    last, usage, end = reply.end(done, include_usage=True)
    last_chunk, usage_chunk = json.loads(last.data), json.loads(usage.data)
    assert last_chunk["choices"] == [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    assert last_chunk["citations"] == [] and "usage" not in last_chunk
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == {"prompt_tokens": 40, "completion_tokens": 5, "total_tokens": 45}
    assert end.data == "[DONE]"
    assert len(reply.end(done, include_usage=False)) == 2
    completion = reply.completion(done)
    assert completion.choices[0].message.content == "Usage tiers [Ref: 1]."
    assert completion.usage.total_tokens == 45
