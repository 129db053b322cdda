"""The MCP server on the gateway (/mcp, streamable HTTP), driven by the `mcp` SDK's own client
against the running system: every tool does what its REST call does, as the key's user only."""

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from shared.launcher.stack import Stack
from tests.conftest import ClientFactory
from tests.fixtures import documents
from tests.helpers import upload, wait_for_status, wait_journaled

pytestmark = pytest.mark.asyncio(loop_scope="session")

TOOLS = {
    "search_files",
    "ask",
    "list_personas",
    "list_files",
    "upload_file",
    "delete_file",
    "list_memory",
    "forget_memory_fact",
}


@asynccontextmanager
async def mcp_session(url: str, authorization: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP session with Artisan at `url`, sending the key as a Cursor would."""
    http = httpx2.AsyncClient(
        headers={"Authorization": authorization}, timeout=httpx2.Timeout(30, read=300)
    )
    async with (
        http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def key_of(client: httpx.AsyncClient) -> str:
    return client.headers["Authorization"]


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; fails with the tool's message if it reported an error."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result
    return result.content[0].text


async def test_a_file_is_uploaded_searched_cited_and_deleted_through_mcp(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    async with mcp_session(system.gateway_url, key_of(api_client)) as mcp:
        assert {tool.name for tool in (await mcp.list_tools()).tools} == TOOLS

        progress: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(done / (total or 100))

        result = await mcp.call_tool(
            "upload_file",
            {"name": "pricing.md", "content_text": documents.markdown(), "wait_seconds": 120},
            progress_callback=on_progress,
        )
        assert not result.is_error, result.content
        uploaded = result.structured_content
        assert all(0 <= share <= 1 for share in progress), progress  # as far as the file got
        assert (uploaded["filename"], uploaded["status"]) == ("pricing.md", "ready"), uploaded
        [listed] = (await call(mcp, "list_files"))["files"]
        assert listed["id"] == uploaded["id"]

        hits = (await call(mcp, "search_files", query="usage tiers", limit=3))["hits"]
        assert hits and hits[0]["filename"] == "pricing.md" and "usage tiers" in hits[0]["snippet"]

        answer = await call(mcp, "ask", persona="vlad", question="Why did we move to usage tiers?")
        assert "predictable bills" in answer["answer"] and "[Ref: 1]" in answer["answer"]
        first = answer["citations"][0]
        assert (first["ref"], first["filename"]) == (1, "pricing.md") and first["snippet"]

        done = await call(mcp, "delete_file", file_id=uploaded["id"])
        assert done == {"done": "deleted pricing.md"}
        assert (await call(mcp, "list_files"))["files"] == []
        gone = await mcp.call_tool("delete_file", {"file_id": uploaded["id"]})
        assert "File not found" in error_text(gone)


async def test_memory_facts_are_read_and_forgotten_through_mcp(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    async with mcp_session(system.gateway_url, key_of(api_client)) as mcp:
        told = await call(mcp, "ask", persona="gunnar", question="I am Maya Chen, the CEO.")
        assert "Maya Chen" in told["answer"], told
        await wait_journaled(api_client, [told["turn_id"]])  # facts are learned from the journal

        facts = {f["fact"]: f for f in (await call(mcp, "list_memory"))["facts"]}
        name = facts["The user's name is Maya Chen."]
        await call(mcp, "forget_memory_fact", fact_id=name["id"])
        remaining = {f["fact"] for f in (await call(mcp, "list_memory"))["facts"]}
        assert remaining == set(facts) - {name["fact"]}
        again = await mcp.call_tool("forget_memory_fact", {"fact_id": name["id"]})
        assert "Memory fact not found" in error_text(again)


async def test_one_users_key_never_reaches_another_users_files(
    system: Stack, make_client: ClientFactory
) -> None:
    owner, other = await make_client(), await make_client()
    record = await upload(owner, "owner-only.md", documents.markdown())
    await wait_for_status(owner, record["id"], "ready", timeout=60)

    async with mcp_session(system.gateway_url, key_of(other)) as mcp:
        assert (await call(mcp, "list_files"))["files"] == []
        assert (await call(mcp, "search_files", query="usage tiers"))["hits"] == []
        refused = await mcp.call_tool("delete_file", {"file_id": record["id"]})
        assert "File not found" in error_text(refused)
    assert (await owner.get(f"/v1/files/{record['id']}")).json()["status"] == "ready"


async def test_bad_arguments_come_back_as_tool_errors_that_say_what_to_do(
    system: Stack, api_client: httpx.AsyncClient
) -> None:
    async with mcp_session(system.gateway_url, key_of(api_client)) as mcp:
        empty = await mcp.call_tool("upload_file", {"name": "a.md"})
        assert "exactly one of content_text or content_base64" in error_text(empty)
        unsupported = await mcp.call_tool("upload_file", {"name": "a.exe", "content_text": "x"})
        assert "'a.exe': unsupported type '.exe'" in error_text(unsupported)
        nobody = await mcp.call_tool("ask", {"persona": "nobody", "question": "hello"})
        assert "Unknown persona 'nobody'" in error_text(nobody) and "gunnar" in error_text(nobody)


@pytest.mark.parametrize(
    ("authorization", "says"),
    [
        (None, "Missing API key"),
        ("Bearer not-a-key", "Invalid API key"),
        ("Basic dXNlcjpwYXNz", "Unsupported authorization scheme"),
    ],
)
async def test_mcp_without_a_valid_key_is_a_401(
    system: Stack, authorization: str | None, says: str
) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization:
        headers["Authorization"] = authorization
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with httpx.AsyncClient(base_url=system.gateway_url) as http:
        response = await http.post("/mcp", json=initialize, headers=headers)
    assert response.status_code == 401 and says in response.json()["detail"]
    assert response.headers["WWW-Authenticate"] == "Bearer"


async def test_a_key_in_the_url_is_refused(system: Stack, api_client: httpx.AsyncClient) -> None:
    key = key_of(api_client).removeprefix("Bearer ")
    async with httpx.AsyncClient(base_url=system.gateway_url) as http:
        response = await http.post("/mcp", params={"api_key": key}, json={})
    assert response.status_code == 401 and "not accepted in the URL" in response.json()["detail"]
