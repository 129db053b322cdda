"""Tools through a remote model: the real openai client streams from a local wire-format server
whose model calls `create_document` for the attached transcript (and `weather_statistics`, switched
on here, against a local server speaking Open-Meteo's format). The prompt carries the attachment
as `[Attached: name]` only, never the file's text, and the document is stored, every item cited."""

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import realistic_responder
from tests.fakes.model_server import FakeModelServer
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.fixtures.meeting_transcript import STANDUP_TRANSCRIPT
from tests.helpers import client_for_new_user, own_stack
from tests.integration.test_chat import chat, ready_file
from tests.integration.test_documents import DOCUMENT_LINK, assert_items_cite_their_passages

pytestmark = pytest.mark.asyncio(loop_scope="session")
WEATHER_ARGS = {
    "latitude": 52.52,
    "longitude": 13.41,
    "start_date": "2024-03-01",
    "end_date": "2024-03-12",
    "place": "Berlin",
}


def calls_a_tool(payload: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A model that calls the tool the question is for, once, reading the file id it was given."""
    messages = payload["messages"]
    if any(message["role"] == "tool" for message in messages):
        return None
    system, question = messages[0]["content"], messages[1]["content"]
    if "weather" in question:
        return [{"name": "weather_statistics", "arguments": WEATHER_ARGS}]
    file_id = system.split("file_id: ", 1)[1].split()[0]
    arguments = {"kind": "meeting_summary", "title": "Weekly sync", "file_id": file_id}
    return [{"name": "create_document", "arguments": arguments}]


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer(realistic_responder) as server:
        server.tool_caller = calls_a_tool
        yield server


@pytest.fixture(scope="module")
def open_meteo() -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as fake:
        yield fake


@pytest.fixture(scope="module")
def tools_system(
    tmp_path_factory: pytest.TempPathFactory,
    pgdata_template: Path,
    model_server: FakeModelServer,
    open_meteo: FakeOpenMeteo,
) -> Iterator[Stack]:
    env = {
        "ARTISAN_LLM_BASE_URL": model_server.base_url,
        "ARTISAN_LLM_API_KEY": "test-key",
        "ARTISAN_LLM_MODEL": "gpt-4o-mini",
        "ARTISAN_LLM_MAX_RETRIES": "1",
        "ARTISAN_WEATHER_TOOL": "true",
        "ARTISAN_WEATHER_BASE_URL": open_meteo.base_url,
    }
    with own_stack(
        tmp_path_factory.mktemp("documents-remote"), env, pgdata=pgdata_template
    ) as stack:
        yield stack


@pytest.fixture
async def client(tools_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(tools_system, "documents-remote") as client:
        yield client


def answer_requests(server: FakeModelServer) -> list[dict[str, Any]]:
    return [r.json for r in server.chat_requests if r.json.get("stream")]


async def test_the_model_calls_create_document_seeing_only_the_attachment_reference(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    record = await ready_file(client, "weekly-sync.txt", STANDUP_TRANSCRIPT)
    model_server.reset()
    message = "Please summarise this meeting"
    _, done = await chat(client, persona="vlad", message=message, attachments=[record["id"]])

    first, second = answer_requests(model_server)
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert offered == {"create_document", "weather_statistics"}
    prompt = json.dumps(first["messages"])
    assert "[Attached: weekly-sync.txt" in prompt
    for line in STANDUP_TRANSCRIPT.splitlines()[3:]:  # no line of the transcript's talk
        assert line not in prompt, line
    assert second["messages"][-1]["role"] == "tool"
    assert "/v1/documents/" in second["messages"][-1]["content"]

    [document] = (await client.get("/v1/documents")).json()["items"]
    assert document["title"] == "Weekly sync" and document["turn_id"] == done["turn_id"]
    detail = (await client.get(f"/v1/documents/{document['id']}")).json()
    assert len(detail["items"]) == 8
    await assert_items_cite_their_passages(client, detail["items"])
    assert done["usage"]["prompt_tokens"] > 0 and not DOCUMENT_LINK.search(prompt)


async def test_the_weather_tool_when_switched_on_answers_from_open_meteo(
    client: httpx.AsyncClient, model_server: FakeModelServer, open_meteo: FakeOpenMeteo
) -> None:
    model_server.reset()
    message = "What was the weather in Berlin in early March 2024?"
    await chat(client, persona="vlad", message=message)

    [sent] = open_meteo.requests[-1:]
    assert (sent["latitude"], sent["start_date"], sent["end_date"]) == (
        "52.5200",
        "2024-03-01",
        "2024-03-12",
    )
    result = answer_requests(model_server)[-1]["messages"][-1]
    assert result["role"] == "tool"
    assert "mean 11.82 °C over 11 of 12 days (1 missing)" in result["content"]
