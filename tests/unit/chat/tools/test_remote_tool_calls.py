"""The remote answer's tool loop through the real openai client against the fake model server:
the streamed call is assembled, run, its result sent back, and the model then answers; the
rounds are bounded; the prompt names the attached file, never its text."""

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.llm.answer import LLMAnswerer
from shared.providers.remote.tool_calls import MAX_TOOL_ROUNDS
from tests.fakes.llm_responder import realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.unit.chat.bundles import PRICING, file_bundle
from tests.unit.chat.test_remote_answer import chat

FILE_ID = uuid.uuid4()
SPEC = {"type": "function", "function": {"name": "create_document", "parameters": {}}}


class RecordingTools:
    """A ToolBox that records its calls and answers with a fixed result."""

    def __init__(self) -> None:
        self.specs = [SPEC]
        self.attachments = [(FILE_ID, "sync.txt")]
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, name: str, arguments: str) -> str:
        self.calls.append((name, json.loads(arguments)))
        return "I made the meeting summary. [Sync](/v1/documents/abc/export)"


def summary_call(payload: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A model that asks for the document once, then answers in words."""
    if any(message["role"] == "tool" for message in payload["messages"]):
        return None
    arguments = {"kind": "meeting_summary", "title": "Sync", "file_id": str(FILE_ID)}
    return [{"name": "create_document", "arguments": arguments}]


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(realistic_responder) as fake:
        yield fake


def _request(tools: RecordingTools) -> AnswerInput:
    bundle, passages = file_bundle({"pricing.md": PRICING})
    return AnswerInput(get_persona("vlad"), "Summarise this meeting", bundle, passages, tools)


async def test_a_streamed_tool_call_is_run_and_its_result_sent_back(
    server: FakeModelServer,
) -> None:
    server.tool_caller = summary_call
    tools = RecordingTools()
    stream = LLMAnswerer(chat(server)).stream_answer(_request(tools))
    answer = "".join([piece async for piece in stream])

    assert tools.calls == [
        ("create_document", {"kind": "meeting_summary", "title": "Sync", "file_id": str(FILE_ID)})
    ]
    first, second = server.chat_requests
    assert first.json["tools"] == [SPEC] and first.json["stream"] is True
    system = first.json["messages"][0]["content"]
    assert f"[Attached: sync.txt] file_id: {FILE_ID}" in system
    sent_back = second.json["messages"]
    assert sent_back[-2]["tool_calls"][0]["function"]["name"] == "create_document"
    assert sent_back[-1]["role"] == "tool" and "meeting summary" in sent_back[-1]["content"]
    assert answer  # the model's words after the call
    assert stream.usage.prompt_tokens > 0


async def test_a_model_that_keeps_calling_is_stopped_after_the_bounded_rounds(
    server: FakeModelServer,
) -> None:
    def always(payload: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"name": "create_document", "arguments": {"kind": "meeting_summary"}}]

    server.tool_caller = always
    tools = RecordingTools()
    stream = LLMAnswerer(chat(server)).stream_answer(_request(tools))
    answer = "".join([piece async for piece in stream])

    assert len(tools.calls) == MAX_TOOL_ROUNDS
    requests = server.chat_requests
    assert len(requests) == MAX_TOOL_ROUNDS + 1
    assert "tools" not in requests[-1].json  # the last round must answer in words
    assert answer
