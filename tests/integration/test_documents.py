"""Documents from files (seed 004) through the running system, offline: a transcript attached to
"summarise this meeting" becomes a stored meeting summary whose every item cites its passage;
documents are listed, read, downloaded as Markdown, deleted, and only by their owner. The
weather tool is off unless switched on."""

import re
from typing import Any

import httpx
import pytest

from tests.conftest import ClientFactory
from tests.fixtures.meeting_transcript import EXPECTED_ITEMS, STANDUP_TRANSCRIPT
from tests.integration.test_chat import chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")
DOCUMENT_LINK = re.compile(r"/v1/documents/([0-9a-f-]{36})/export")


async def assert_items_cite_their_passages(
    client: httpx.AsyncClient, items: list[dict[str, Any]]
) -> None:
    """Every item cites, numbered 1…n, a chunk of its file whose text holds the quote exactly."""
    assert [item["citation"]["ref"] for item in items] == list(range(1, len(items) + 1))
    file_ids = {item["citation"]["file_id"] for item in items}
    chunks = {}
    for file_id in file_ids:
        listed = (await client.get(f"/v1/files/{file_id}/chunks")).json()["items"]
        chunks |= {chunk["id"]: chunk for chunk in listed}
    for item in items:
        citation = item["citation"]
        assert citation["snippet"] in chunks[citation["chunk_id"]]["text"], item


async def summarise(client: httpx.AsyncClient, file_id: str) -> tuple[dict[str, Any], str]:
    message = "Summarise this meeting"
    _, done = await chat(client, persona="gunnar", message=message, attachments=[file_id])
    found = DOCUMENT_LINK.search(done["answer"])
    assert found, done["answer"]
    return done, found.group(1)


async def test_an_attached_transcript_becomes_a_meeting_summary_citing_every_item(
    make_client: ClientFactory,
) -> None:
    client = await make_client()
    record = await ready_file(client, "weekly-sync.txt", STANDUP_TRANSCRIPT)
    done, document_id = await summarise(client, record["id"])
    assert "3 action items" in done["answer"] and not done["refused"]

    listed = (await client.get("/v1/documents")).json()["items"]
    assert [d["id"] for d in listed] == [document_id]
    assert listed[0]["kind"] == "meeting_summary" and listed[0]["file_id"] == record["id"]
    assert listed[0]["turn_id"] == done["turn_id"]

    document = (await client.get(f"/v1/documents/{document_id}")).json()
    items = document["items"]
    assert [item["section"] for item in items] == [section for section, *_ in EXPECTED_ITEMS]
    actions = [(i["owner"], i["due"]) for i in items if i["section"] == "action_items"]
    assert actions == [("Ben", "March 20"), ("Chloe", "2026-03-15"), ("Ben", "Friday")]
    await assert_items_cite_their_passages(client, items)

    exported = await client.get(document["download_url"])
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/markdown")
    assert (
        'filename="meeting-summary-weekly-sync-txt.md"' in exported.headers["content-disposition"]
    )
    assert exported.text == document["body"] and "## Action items" in exported.text
    assert all(f"[Ref: {n}]" in exported.text for n in range(1, len(items) + 1))


async def test_a_document_is_its_owners_alone_and_can_be_deleted(
    make_client: ClientFactory,
) -> None:
    owner, stranger = await make_client(), await make_client()
    record = await ready_file(owner, "sync-notes.txt", STANDUP_TRANSCRIPT)
    _, document_id = await summarise(owner, record["id"])

    for path in (f"/v1/documents/{document_id}", f"/v1/documents/{document_id}/export"):
        response = await stranger.get(path)
        assert response.status_code == 404 and "GET /v1/documents" in response.json()["detail"]
    assert (await stranger.delete(f"/v1/documents/{document_id}")).status_code == 404
    assert (await stranger.get("/v1/documents")).json()["items"] == []
    assert (await owner.get("/v1/documents/not-an-id")).status_code == 404

    assert (await owner.delete(f"/v1/documents/{document_id}")).status_code == 204
    assert (await owner.get(f"/v1/documents/{document_id}")).status_code == 404


async def test_weather_questions_do_not_call_the_tool_unless_it_is_switched_on(
    api_client: httpx.AsyncClient,
) -> None:
    message = "What was the weather in Berlin in March 2024?"
    _, done = await chat(api_client, persona="gunnar", message=message)
    assert "Open-Meteo" not in done["answer"] and "Daily mean temperature" not in done["answer"]
